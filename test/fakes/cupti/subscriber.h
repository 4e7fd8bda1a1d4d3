// The callback API (cupti_callbacks.h): at most one subscriber per process, as in CUPTI, and the
// runtime- and driver-domain callbacks it enabled. Callbacks of the other domains can be enabled
// but the fake never issues them.
#pragma once

#include "cupti_abi.h"

namespace gprof_fake_cupti {

// CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED while another subscriber (or, with the mode
// subscriber_taken, another tool) holds the slot; its name then goes to params->oldSubscriberName.
CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                      void* userdata, CUpti_SubscriberParams* params);
CUptiResult Unsubscribe(CUpti_SubscriberHandle subscriber);
CUptiResult EnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
CUptiResult EnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                         CUpti_CallbackDomain domain);
CUptiResult EnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber);
CUptiResult GetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                             CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// Calls the subscriber's callback on the calling thread if it enabled (domain, cbid).
void DispatchApiCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const CUpti_CallbackData& data);

// cuptiFinalize: the slot is free again.
void DropSubscriber();

}  // namespace gprof_fake_cupti
