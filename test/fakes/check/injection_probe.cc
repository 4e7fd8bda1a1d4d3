// A tool injected the way the driver loads one (CUDA_INJECTION64_PATH): its InitializeInjection
// subscribes to CUPTI, so the checks can tell whether it ran before the application's first call
// was reported, and how many times it ran.
#include "injection_probe.h"

#include <cupti.h>

#include <atomic>
#include <cstdio>

namespace {

std::atomic<int> g_injections{0};
std::atomic<bool> g_seen{false};
char g_first_call[128];

void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* cbdata) {
  static_cast<void>(userdata);
  static_cast<void>(domain);
  static_cast<void>(cbid);
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  if (data->callbackSite != CUPTI_API_ENTER || g_seen.exchange(true)) return;
  std::snprintf(g_first_call, sizeof(g_first_call), "%s", data->functionName);
}

}  // namespace

extern "C" int InitializeInjection(void) {
  g_injections.fetch_add(1);
  CUpti_SubscriberHandle subscriber = nullptr;
  if (cuptiSubscribe(&subscriber, OnCallback, nullptr) != CUPTI_SUCCESS) return 0;
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  return 1;
}

extern "C" int gprof_probe_injections(void) {
  return g_injections.load();
}

extern "C" const char* gprof_probe_first_call(void) {
  return g_first_call;
}
