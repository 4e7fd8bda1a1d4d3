// Times one intercepted call and hands its record to the collector. The hot
// path of every hook (DESIGN.md §2.1): two clock reads and one ring push, and
// the thread's "inside an interposed call" marker for the CUPTI callbacks.
#pragma once

#include "inject/cuda_api.h"

#include "collector/clock.h"
#include "collector/cupti_session.h"
#include "collector/process_state.h"
#include "collector/recorder.h"
#include "formats/record.h"
#include "inject/call_state.h"

namespace gprof::inject {

class ApiCall {
 public:
  explicit ApiCall(ApiId api) : active_(recording()), outer_(t_call.interposed) {
    t_call.interposed = &record_;
    if (active_) {
      record_.api = api;
      if (__builtin_expect(process_state().external_correlation.load(std::memory_order_relaxed),
                           0)) {
        record_.correlation = push_external_correlation();
        pushed_ = true;
      }
      record_.start_ns = clock_ns();
    }
  }
  ~ApiCall() {
    t_call.interposed = outer_;
    if (pushed_) pop_external_correlation();
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  bool active() const { return active_; }
  ApiRecord& record() { return record_; }

  cudaError_t finish(cudaError_t result) {
    if (active_) {
      record_.end_ns = clock_ns();
      record_.result = static_cast<int32_t>(result);
      submit(record_);
    }
    return result;
  }

 private:
  bool active_;
  bool pushed_ = false;
  ApiRecord* outer_;
  ApiRecord record_{};
};

inline uint64_t handle(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// The real function was not found: behave like a runtime without it.
inline constexpr cudaError_t kMissing = cudaErrorSharedObjectSymbolNotFound;

}  // namespace gprof::inject
