#include "api_call.h"

#include <atomic>

#include "clock.h"
#include "fake_gpu_observer.h"
#include "gpu_op_log.h"

namespace gprof_fake {
namespace {

struct Observer {
  GprofFakeApiObserver callback = nullptr;
  void* user_data = nullptr;
};

// Replaced rarely; old observers are leaked so that a concurrent call never sees a freed one.
std::atomic<const Observer*> g_observer{nullptr};
std::atomic<uint32_t> g_next_correlation_id{1};
thread_local cudaError_t t_last_error = cudaSuccess;

void Notify(GprofFakeApiPhase phase, const char* name, uint32_t correlation_id, int32_t result) {
  const Observer* observer = g_observer.load(std::memory_order_acquire);
  if (observer == nullptr || observer->callback == nullptr) return;
  GprofFakeApiCall call{};
  call.struct_size = sizeof(call);
  call.phase = phase;
  call.name = name;
  call.correlation_id = correlation_id;
  call.result = result;
  observer->callback(&call, observer->user_data);
}

}  // namespace

ApiCall::ApiCall(const char* name)
    : name_(name), correlation_id_(g_next_correlation_id.fetch_add(1, std::memory_order_relaxed)) {
  // Any call is a chance to report finished GPU work; a real CUPTI delivers buffers lazily too.
  if (GpuOpsObserved()) DeliverCompletedGpuOps(NowNs());
  Notify(GPROF_FAKE_API_ENTER, name_, correlation_id_, 0);
}

ApiCall::~ApiCall() {
  Notify(GPROF_FAKE_API_EXIT, name_, correlation_id_, result_);
}

cudaError_t ApiCall::Return(cudaError_t result) {
  if (result != cudaSuccess) t_last_error = result;
  result_ = result;
  return result;
}

cudaError_t ApiCall::ReturnUnrecorded(cudaError_t result) {
  result_ = result;
  return result;
}

cudaError_t ApiCall::ReturnQuery(cudaError_t result) {
  return result == cudaErrorNotReady ? ReturnUnrecorded(result) : Return(result);
}

cudaError_t PeekLastError() {
  return t_last_error;
}

cudaError_t TakeLastError() {
  const cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

}  // namespace gprof_fake

extern "C" void gprof_fake_set_api_observer(GprofFakeApiObserver observer, void* user_data) {
  gprof_fake::g_observer.store(new gprof_fake::Observer{observer, user_data},
                               std::memory_order_release);
}
