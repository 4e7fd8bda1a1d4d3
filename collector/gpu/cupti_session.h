// The CUPTI side of a process (docs/architecture.md §2.6, §3.4, §3): set up once from
// InitializeInjection, flushed at exit before CUDA tears down, abandoned in a
// fork child. Whatever fails, the host program is left alone and the reason
// is reported once.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace gprof {

// Runtime- or driver-domain callback ids to enable.
struct CallbackIds {
  CUpti_CallbackDomain domain;
  const CUpti_CallbackId* ids;
  size_t count;
};

struct CuptiSetup {
  CUpti_CallbackFunc handler = nullptr;
  const CallbackIds* callbacks = nullptr;
  size_t callback_sets = 0;
  const char* attach = "injection";  // or "late" (collector/gpu/late_attach.h)
};

// Once per process; later calls do nothing.
void start_cupti(const CuptiSetup& setup);

// Another tool's calls into CUPTI's activity API, reported by the
// interposed entry points (inject/hooks_cupti.cc) before and after the real
// call, on the other tool's thread: how gprof notices a takeover (docs/architecture.md
// §3.4; session/takeover.cc explains the policy). Not on a hot path; they take
// no lock and allocate nothing. `before` may flush gprof's own buffers.
enum class ForeignCall {
  kRegisterCallbacks,  // cuptiActivityRegisterCallbacks
  kTimestampCallback,  // cuptiActivityRegisterTimestampCallback
  kEnable,             // cuptiActivityEnable
  kDisable,            // cuptiActivityDisable
  kFinalize,           // cuptiFinalize
  kSubscribe,          // cuptiSubscribe, cuptiSubscribe_v2
  kUnsubscribe,        // cuptiUnsubscribe
};
void foreign_cupti_before(ForeignCall call, CUpti_TimestampCallbackFunc clock = nullptr);
void foreign_cupti_after(ForeignCall call, CUptiResult result,
                         CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID);

// Pairing by pushed external ids, for when another tool holds the CUPTI
// subscriber (docs/architecture.md §3.3); hooks check process_state().external_correlation
// first. A new id, pushed as CUSTOM2 for the duration of one intercepted call.
uint64_t push_external_correlation();
void pop_external_correlation();

}  // namespace gprof
