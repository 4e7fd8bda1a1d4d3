#include "api_call.h"

#include <atomic>
#include <cstring>

#include "clock.h"
#include "config.h"
#include "driver_result.h"
#include "fake_device_api.h"
#include "gpu_op_log.h"
#include "injection.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

struct Observer {
  GprofFakeApiObserver callback = nullptr;
  void* user_data = nullptr;
};

// The calls in progress on this thread, innermost last. A fixed array rather than a container:
// it must stay usable from thread-exit and atexit code that calls the runtime after thread_local
// objects with destructors are gone. Calls deeper than this are not told their stream.
struct Frame {
  GprofFakeApiCall* call = nullptr;
  bool nested_driver = false;
};
constexpr int kMaxDepth = 32;
thread_local Frame t_frames[kMaxDepth];
thread_local int t_depth = 0;

// Replaced rarely; old observers are leaked so that a concurrent call never sees a freed one.
std::atomic<const Observer*> g_observer{nullptr};
// 32 bits, as CUPTI's ids (CUpti_CallbackData::correlationId is a uint32_t): a long run wraps
// them. A test makes a short run wrap: GPROF_FAKE_FIRST_CORRELATION_ID starts near the end, and
// GPROF_FAKE_CORRELATION_STEP advances the counter by more than one a call, as the calls of a
// long run that the profiler never sees (other APIs, other threads, outside its window) do.
std::atomic<uint32_t> g_next_correlation_id{GetConfig().first_correlation_id};

uint32_t NextCorrelationId() {
  const uint32_t step = GetConfig().correlation_step;
  uint32_t id = g_next_correlation_id.fetch_add(step, std::memory_order_relaxed);
  // CUPTI's records use 0 for "no such call" (CUpti_ActivityMemcpy6::runtimeCorrelationId of a
  // driver-API copy), so a wrapped counter skips it.
  if (id == 0) id = g_next_correlation_id.fetch_add(step, std::memory_order_relaxed);
  return id;
}
thread_local cudaError_t t_last_error = cudaSuccess;

void Notify(const GprofFakeApiCall& call) {
  const Observer* observer = g_observer.load(std::memory_order_acquire);
  if (observer == nullptr || observer->callback == nullptr) return;
  observer->callback(&call, observer->user_data);
}

// The real driver loads the injection library when it initializes, which the runtime's first
// real call triggers; registration calls run at static-initialization time, before that, and
// the error-string calls never initialize anything.
// What nvcc's static constructors call (module registration) does not initialize the driver;
// everything else does, launches included: the first <<<>>> of a program is often its first
// runtime call (__cudaGetKernel + __cudaLaunchKernel).
bool InitializesDriver(const char* name) {
  const bool registration = std::strncmp(name, "__cudaRegister", 14) == 0 ||
                            std::strncmp(name, "__cudaUnregister", 16) == 0 ||
                            std::strcmp(name, "__cudaInitModule") == 0 ||
                            std::strcmp(name, "__cudaPushCallConfiguration") == 0 ||
                            std::strcmp(name, "__cudaPopCallConfiguration") == 0;
  return !registration && std::strcmp(name, "cudaGetErrorName") != 0 &&
         std::strcmp(name, "cudaGetErrorString") != 0;
}

void Begin(GprofFakeApiCall* call, GprofFakeApiDomain domain, bool nested_driver) {
  call->struct_size = sizeof(*call);
  call->phase = GPROF_FAKE_API_ENTER;
  call->domain = domain;
  call->correlation_id = NextCorrelationId();
  // Any call is a chance to report finished GPU work; a real CUPTI delivers buffers lazily too.
  if (GpuOpsObserved()) DeliverCompletedGpuOps(NowNs());
  call->device = static_cast<uint32_t>(CurrentDevice());
  call->enter_ns = NowNs();
  if (t_depth < kMaxDepth) t_frames[t_depth] = Frame{call, nested_driver};
  ++t_depth;
  Notify(*call);
}

void End(GprofFakeApiCall* call) {
  // Off the stack before EXIT is reported: calls the observer makes are not part of this one.
  if (t_depth > 0) --t_depth;
  call->phase = GPROF_FAKE_API_EXIT;
  call->exit_ns = NowNs();
  Notify(*call);
}

}  // namespace

ApiCall::ApiCall(const char* name, uint32_t cbid, const void* params, const char* symbol_name) {
  // Before the id is taken and before ENTER, so that the injected tool sees this very call and
  // ids still increase in call order.
  if (InitializesDriver(name)) InjectOnce();
  record_.name = name;
  record_.cbid = cbid;
  record_.params = params;
  record_.symbol_name = symbol_name;
  Begin(&record_, GPROF_FAKE_DOMAIN_RUNTIME, /*nested_driver=*/false);
}

ApiCall::ApiCall(NestedDriver, const char* name, uint32_t cbid, const void* params,
                 const char* symbol_name) {
  record_.name = name;
  record_.cbid = cbid;
  record_.params = params;
  record_.symbol_name = symbol_name;
  Begin(&record_, GPROF_FAKE_DOMAIN_DRIVER, /*nested_driver=*/true);
}

ApiCall::~ApiCall() {
  End(&record_);
}

cudaError_t ApiCall::Return(cudaError_t result) {
  if (record_.domain == GPROF_FAKE_DOMAIN_DRIVER) {
    record_.result = DriverResult(result);
    return result;
  }
  if (result != cudaSuccess) t_last_error = result;
  record_.result = result;
  return result;
}

cudaError_t ApiCall::ReturnUnrecorded(cudaError_t result) {
  record_.result = result;
  return result;
}

cudaError_t ApiCall::ReturnQuery(cudaError_t result) {
  return result == cudaErrorNotReady ? ReturnUnrecorded(result) : Return(result);
}

bool InnermostCallIsRuntime() {
  if (t_depth == 0 || t_depth > kMaxDepth) return false;
  return t_frames[t_depth - 1].call->domain == GPROF_FAKE_DOMAIN_RUNTIME;
}

void NoteStream(uint32_t timeline_id) {
  if (t_depth == 0 || t_depth > kMaxDepth) return;
  const Frame& top = t_frames[t_depth - 1];
  if (top.call->stream_id == 0) top.call->stream_id = timeline_id;
  if (top.nested_driver && t_depth >= 2) {
    GprofFakeApiCall* parent = t_frames[t_depth - 2].call;
    if (parent->stream_id == 0) parent->stream_id = timeline_id;
  }
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

extern "C" void gprof_fake_api_enter(GprofFakeApiCall* call) {
  gprof_fake::Begin(call, GPROF_FAKE_DOMAIN_DRIVER, /*nested_driver=*/false);
}

extern "C" void gprof_fake_api_exit(GprofFakeApiCall* call, int32_t result) {
  call->result = result;
  gprof_fake::End(call);
}
