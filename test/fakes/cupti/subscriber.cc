#include "subscriber.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "config.h"

// The object behind CUpti_SubscriberHandle, which cupti_callbacks.h declares at global scope.
// Never freed: another thread may be inside its callback while it is unsubscribed.
struct CUpti_Subscriber_st {
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  std::string name;
  std::atomic<bool> runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE] = {};
  std::atomic<bool> driver[CUPTI_DRIVER_TRACE_CBID_SIZE] = {};
};

namespace gprof_fake_cupti {
namespace {

// What the mode subscriber_taken pretends holds the slot.
constexpr const char* kOtherTool = "CUPTI for fake other tool";

std::mutex g_mu;  // serializes subscribe and unsubscribe
std::atomic<CUpti_Subscriber_st*> g_current{nullptr};

void ReportOldSubscriber(CUpti_SubscriberParams* params, const std::string& name) {
  if (params == nullptr || params->oldSubscriberName == nullptr || params->oldSubscriberSize == 0) {
    return;
  }
  std::snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", name.c_str());
}

bool IsCurrent(CUpti_SubscriberHandle subscriber) {
  return subscriber != nullptr && subscriber == g_current.load(std::memory_order_acquire);
}

std::atomic<bool>* Flags(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                         size_t* count) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    *count = CUPTI_RUNTIME_TRACE_CBID_SIZE;
    return subscriber->runtime;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    *count = CUPTI_DRIVER_TRACE_CBID_SIZE;
    return subscriber->driver;
  }
  *count = 0;
  return nullptr;
}

bool ValidDomain(CUpti_CallbackDomain domain) {
  return domain > CUPTI_CB_DOMAIN_INVALID && domain < CUPTI_CB_DOMAIN_SIZE;
}

}  // namespace

CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                      void* userdata, CUpti_SubscriberParams* params) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (params != nullptr && params->structSize == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  if (GetConfig().subscriber_taken) {
    ReportOldSubscriber(params, kOtherTool);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  std::lock_guard lock(g_mu);
  if (const CUpti_Subscriber_st* current = g_current.load(std::memory_order_acquire);
      current != nullptr) {
    ReportOldSubscriber(params, current->name);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  auto* created = new CUpti_Subscriber_st;
  created->callback = callback;
  created->userdata = userdata;
  // The holder's name as cuptiSubscribe_v2 reports it to the next caller: "CUPTI for NAME", and
  // for a subscriber that gave none (cuptiSubscribe) "CUPTI for <not provided>" (observed:
  // NVIDIA H100, driver 580.159.04, CUPTI 13.0.1, 2026-11-27; test/fakes/observed/).
  created->name = "CUPTI for ";
  if (params != nullptr && params->subscriberName != nullptr) {
    created->name += std::string(params->subscriberName).substr(0, CUPTI_SUBSCRIBER_NAME_MAX_LEN);
  } else {
    created->name += "<not provided>";
  }
  g_current.store(created, std::memory_order_release);
  *subscriber = created;
  return CUPTI_SUCCESS;
}

CUptiResult Unsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard lock(g_mu);
  if (!IsCurrent(subscriber)) return CUPTI_ERROR_INVALID_PARAMETER;
  g_current.store(nullptr, std::memory_order_release);
  return CUPTI_SUCCESS;
}

CUptiResult EnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (!IsCurrent(subscriber) || !ValidDomain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t count = 0;
  std::atomic<bool>* flags = Flags(subscriber, domain, &count);
  if (flags == nullptr) return CUPTI_SUCCESS;  // a domain the fake never calls back for
  if (cbid == 0 || cbid >= count) return CUPTI_ERROR_INVALID_PARAMETER;
  flags[cbid].store(enable != 0, std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

CUptiResult EnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                         CUpti_CallbackDomain domain) {
  if (!IsCurrent(subscriber) || !ValidDomain(domain)) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t count = 0;
  std::atomic<bool>* flags = Flags(subscriber, domain, &count);
  for (size_t cbid = 1; cbid < count; ++cbid) {
    flags[cbid].store(enable != 0, std::memory_order_relaxed);
  }
  return CUPTI_SUCCESS;
}

CUptiResult EnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber) {
  if (!IsCurrent(subscriber)) return CUPTI_ERROR_INVALID_PARAMETER;
  EnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  EnableDomain(enable, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  return CUPTI_SUCCESS;
}

CUptiResult GetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                             CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (enable == nullptr || !IsCurrent(subscriber) || !ValidDomain(domain)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  size_t count = 0;
  const std::atomic<bool>* flags = Flags(subscriber, domain, &count);
  if (flags != nullptr && (cbid == 0 || cbid >= count)) return CUPTI_ERROR_INVALID_PARAMETER;
  *enable = flags != nullptr && flags[cbid].load(std::memory_order_relaxed) ? 1 : 0;
  return CUPTI_SUCCESS;
}

void DispatchApiCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const CUpti_CallbackData& data) {
  CUpti_Subscriber_st* subscriber = g_current.load(std::memory_order_acquire);
  if (subscriber == nullptr || subscriber->callback == nullptr) return;
  size_t count = 0;
  const std::atomic<bool>* flags = Flags(subscriber, domain, &count);
  if (flags == nullptr || cbid == 0 || cbid >= count) return;
  if (!flags[cbid].load(std::memory_order_relaxed)) return;
  subscriber->callback(subscriber->userdata, domain, cbid, &data);
}

void DropSubscriber() {
  std::lock_guard lock(g_mu);
  g_current.store(nullptr, std::memory_order_release);
}

}  // namespace gprof_fake_cupti
