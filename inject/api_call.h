// Times one intercepted call and writes its record in place into the calling
// thread's queue. The hot path of every hook (DESIGN.md §2.1): two timestamp
// reads, one record written where it will be read, one release store; and
// the thread's "inside an interposed call" marker for the CUPTI callbacks.
#pragma once

#include "inject/cuda_api.h"

#include "collector/cupti_session.h"
#include "collector/process_state.h"
#include "collector/queue_records.h"
#include "collector/recorder.h"
#include "collector/thread_state.h"
#include "collector/timestamp.h"
#include "formats/record.h"

namespace gprof::inject {

// The fields a non-launch call may carry (formats/api_ids.h says which).
struct CallFields {
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint64_t address = 0;
  uint8_t copy_kind = 0;
};

class ApiCall {
 public:
  explicit ApiCall(ApiId api) : thread_(this_thread()), api_(api), active_(recording()) {
    outer_ = thread_.interposed;
    thread_.interposed = &correlation_;
    if (active_) {
      if (__builtin_expect(process_state().external_correlation.load(std::memory_order_relaxed),
                           0)) {
        correlation_ = push_external_correlation();
        pushed_ = true;
      }
      start_ = timestamp();
    }
  }
  ~ApiCall() {
    thread_.interposed = outer_;
    if (pushed_) pop_external_correlation();
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  bool active() const { return active_; }
  CallFields& record() { return fields_; }

  cudaError_t finish(cudaError_t result) {
    if (active_) {
      const uint64_t end = timestamp();
      if (QCall* q = reserve<QCall>(thread_)) {
        q->type = QueueType::kCall;
        q->copy_kind = fields_.copy_kind;
        q->api = static_cast<uint16_t>(api_);
        q->result = static_cast<int32_t>(result);
        q->start = start_;
        q->end = end;
        q->stream = fields_.stream;
        q->bytes = fields_.bytes;
        q->address = fields_.address;
        q->correlation = correlation_;
        commit(thread_, sizeof(QCall));
      }
    }
    return result;
  }

  // A launch: the host stub or cudaKernel_t handle goes in as it is; the
  // writer finds its name.
  cudaError_t finish_launch(cudaError_t result, const void* function, bool by_handle, dim3 grid,
                            dim3 block, size_t shared_mem, cudaStream_t stream) {
    if (active_) {
      const uint64_t end = timestamp();
      if (QLaunch* q = reserve<QLaunch>(thread_)) {
        fill_launch(q, static_cast<uint16_t>(api_), by_handle, static_cast<int32_t>(result), start_,
                    end, reinterpret_cast<uintptr_t>(stream), correlation_, function, 0,
                    static_cast<uint32_t>(shared_mem), Dim3{grid.x, grid.y, grid.z},
                    Dim3{block.x, block.y, block.z});
        commit(thread_, sizeof(QLaunch));
      }
    }
    return result;
  }

 private:
  ThreadState& thread_;
  ApiId api_;
  bool active_;
  bool pushed_ = false;
  uint64_t* outer_;
  uint64_t start_ = 0;
  uint64_t correlation_ = 0;  // CUPTI's callback for this call fills it
  CallFields fields_;
};

// The common case of the `<<<...>>>` launch hooks (hooks_launch.cc), which
// write their record without ApiCall's bookkeeping: recording with TSC
// timestamps (tsc_ticks()), no external correlation id to push.
inline bool plain_recording_tsc() {
  return recording_tsc() && !process_state().external_correlation.load(std::memory_order_relaxed);
}

inline uint64_t handle(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// The real function was not found: behave like a runtime without it.
inline constexpr cudaError_t kMissing = cudaErrorSharedObjectSymbolNotFound;

}  // namespace gprof::inject
