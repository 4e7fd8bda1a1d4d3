// The callback API's entry points (cupti_callbacks.h).
#include "cupti_abi.h"
#include "last_error.h"
#include "runtime_link.h"
#include "subscriber.h"

using gprof_fake_cupti::Finish;

extern "C" CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                               CUpti_CallbackFunc callback, void* userdata) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  return Finish(gprof_fake_cupti::Subscribe(subscriber, callback, userdata, nullptr));
}

extern "C" CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                                  CUpti_CallbackFunc callback, void* userdata,
                                                  CUpti_SubscriberParams* pParams) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  return Finish(gprof_fake_cupti::Subscribe(subscriber, callback, userdata, pParams));
}

extern "C" CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  return Finish(gprof_fake_cupti::Unsubscribe(subscriber));
}

extern "C" CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable,
                                                    CUpti_SubscriberHandle subscriber,
                                                    CUpti_CallbackDomain domain,
                                                    CUpti_CallbackId cbid) {
  return Finish(gprof_fake_cupti::EnableCallback(enable, subscriber, domain, cbid));
}

extern "C" CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable,
                                                  CUpti_SubscriberHandle subscriber,
                                                  CUpti_CallbackDomain domain) {
  return Finish(gprof_fake_cupti::EnableDomain(enable, subscriber, domain));
}

extern "C" CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable,
                                                      CUpti_SubscriberHandle subscriber) {
  return Finish(gprof_fake_cupti::EnableAllDomains(enable, subscriber));
}

extern "C" CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t* enable,
                                                      CUpti_SubscriberHandle subscriber,
                                                      CUpti_CallbackDomain domain,
                                                      CUpti_CallbackId cbid) {
  return Finish(gprof_fake_cupti::GetCallbackState(enable, subscriber, domain, cbid));
}
