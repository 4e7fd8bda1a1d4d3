// Times one intercepted call and writes its record in place into the calling
// thread's queue. The hot path of every hook (docs/architecture.md §2.1): two timestamp
// reads, one record written where it will be read, one release store; and
// the thread's "inside an interposed call" marker for the CUPTI callbacks.
#pragma once

#include "inject/cuda_api.h"

#include "collector/gpu/cupti_session.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/queue_records.h"
#include "collector/queues/thread_state.h"
#include "collector/queues/timestamp.h"
#include "formats/api_ids.h"
#include "formats/record.h"

namespace gprof::inject {

// The fields a non-launch call may carry (formats/api_ids.h says which).
struct CallFields {
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint64_t address = 0;
  uint8_t copy_kind = 0;
};

// The libcudart major of this hook build (inject/hook_name.h), in the record.
#ifdef GPROF_CUDART_MAJOR
inline constexpr uint8_t kRuntimeBits = runtime_bits(GPROF_CUDART_MAJOR);
#else
inline constexpr uint8_t kRuntimeBits = 0;
#endif

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
      claim();
      start_ = timestamp();
    }
  }
  ~ApiCall() {
    thread_.interposed = outer_;
    if (pushed_) pop_external_correlation();
    if (claimed_) finish(cudaErrorUnknown);  // every hook finishes; never left pending
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  bool active() const { return active_; }
  CallFields& record() { return fields_; }

  cudaError_t finish(cudaError_t result) {
    if (!claimed_) return result;
    const uint64_t end = timestamp();
    if (launch_) {  // a launch API that ended without its launch's arguments
      fill_launch(reinterpret_cast<QLaunch*>(claimed_), static_cast<uint16_t>(api_), kRuntimeBits,
                  static_cast<int32_t>(result), start_, end, fields_.stream, correlation_, nullptr,
                  0, 0, Dim3{}, Dim3{});
    } else {
      auto* q = reinterpret_cast<QCall*>(claimed_);
      q->copy_kind = fields_.copy_kind | kRuntimeBits;
      q->api = static_cast<uint16_t>(api_);
      q->result = static_cast<int32_t>(result);
      q->start = start_;
      q->end = end;
      q->stream = fields_.stream;
      q->bytes = fields_.bytes;
      q->address = fields_.address;
      q->correlation = correlation_;
    }
    publish(launch_ ? QueueType::kLaunch : QueueType::kCall);
    return result;
  }

  // A launch: the host stub or cudaKernel_t handle goes in as it is; the
  // writer finds its name.
  cudaError_t finish_launch(cudaError_t result, const void* function, bool by_handle, dim3 grid,
                            dim3 block, size_t shared_mem, cudaStream_t stream) {
    if (!claimed_ || !launch_) return finish(result);
    const uint64_t end = timestamp();
    fill_launch(reinterpret_cast<QLaunch*>(claimed_), static_cast<uint16_t>(api_),
                static_cast<uint8_t>(by_handle) | kRuntimeBits, static_cast<int32_t>(result),
                start_, end, reinterpret_cast<uintptr_t>(stream), correlation_, function, 0,
                static_cast<uint32_t>(shared_mem), Dim3{grid.x, grid.y, grid.z},
                Dim3{block.x, block.y, block.z});
    publish(QueueType::kLaunch);
    return result;
  }

 private:
  // The record is claimed before the real call, as the launch fast path does
  // (hooks_launch.cc): whatever the call records on this thread comes after
  // it, so a thread's records stay in order of their start.
  void claim() {
    launch_ = (api_fields(api_) & kFieldLaunch) != 0;
    const uint32_t size = launch_ ? sizeof(QLaunch) : sizeof(QCall);
    char* p = thread_.cursor;
    if (__builtin_expect(!fits(p, size, thread_.end), 0)) p = reserve_slow(thread_, size, false);
    if (!p) return;  // dropped, counted
    *p = static_cast<char>(launch_ ? QueueType::kPendingLaunch : QueueType::kPendingCall);
    thread_.cursor = p + size;
    claimed_ = p;
  }
  // The record's type turns final last (release), then it is published with
  // anything recorded inside the call.
  void publish(QueueType type) {
    __atomic_store_n(reinterpret_cast<uint8_t*>(claimed_), static_cast<uint8_t>(type),
                     __ATOMIC_RELEASE);
    claimed_ = nullptr;
    commit_claimed(thread_);
  }

  ThreadState& thread_;
  ApiId api_;
  bool active_;
  bool pushed_ = false;
  bool launch_ = false;
  char* claimed_ = nullptr;
  uint64_t* outer_;
  uint64_t start_ = 0;
  uint64_t correlation_ = 0;  // CUPTI's callback for this call fills it
  CallFields fields_;
};

inline uint64_t handle(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// The real function was not found: behave like a runtime without it.
inline constexpr cudaError_t kMissing = cudaErrorSharedObjectSymbolNotFound;

}  // namespace gprof::inject
