#include "inject/cupti_handler.h"

// cupti.h brings the parameter structs (generated_cuda*_meta.h), which have
// no include guards.
#include <cupti.h>

#include <type_traits>

#include "collector/process/capture_window.h"
#include "collector/process/recorder.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/timestamp.h"
#include "inject/api_call.h"
#include "inject/call_state.h"

namespace gprof::inject {

namespace {

// CUPTI 13.0 ships no parameter struct for __cudaLaunchKernel; its
// arguments are cudaLaunchKernel's, with a cudaKernel_t first.
struct LaunchKernelInternalParams {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};

uint32_t kernel_id(const void* function, const char* symbol) {
  KernelRegistry& kernels = kernel_registry();
  uint32_t id = kernels.id_for_handle(function);
  if (id == 0 && symbol != nullptr && function != nullptr)
    id = kernels.register_function(function, symbol);
  return id;
}

template <typename P>
void stream_of(const P* p, ApiRecord& r) {
  if constexpr (requires { p->stream; }) r.stream = handle(p->stream);
  if constexpr (requires { p->hStream; }) r.stream = handle(p->hStream);
}

// Runtime launches: cudaLaunchKernel(_ptsz), __cudaLaunchKernel(_ptsz).
template <typename P>
void runtime_launch(const P* p, const CUpti_CallbackData* cb, ApiRecord& r) {
  const void* function;
  if constexpr (requires { p->func; })
    function = p->func;
  else
    function = p->kernel;
  r.kernel = kernel_id(function, cb->symbolName);
  r.grid = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
  r.block = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
  r.shared_mem = static_cast<uint32_t>(p->sharedMem);
  r.stream = handle(p->stream);
}

template <typename P>
void runtime_launch_ex(const P* p, const CUpti_CallbackData* cb, ApiRecord& r) {
  r.kernel = kernel_id(p->func, cb->symbolName);
  if (const cudaLaunchConfig_t* c = p->config) {
    r.grid = {c->gridDim.x, c->gridDim.y, c->gridDim.z};
    r.block = {c->blockDim.x, c->blockDim.y, c->blockDim.z};
    r.shared_mem = static_cast<uint32_t>(c->dynamicSmemBytes);
    r.stream = handle(c->stream);
  }
}

template <typename P>
void graph_launch(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.address = handle(p->graphExec);
  r.stream = handle(p->stream);
}

template <typename P>
void copy(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  if constexpr (requires { p->height; })
    r.bytes = static_cast<uint64_t>(p->width) * p->height;
  else
    r.bytes = p->count;
  if constexpr (requires { p->kind; })
    r.copy_kind = static_cast<uint8_t>(p->kind);
  else
    r.copy_kind = cudaMemcpyDeviceToDevice;  // peer copies
  stream_of(p, r);
}

// cudaMemcpy3D(Async): the extent's width is in bytes for linear memory (in
// elements when an array takes part, where this undercounts).
template <typename P>
void copy_3d(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  if (const cudaMemcpy3DParms* m = p->p) {
    r.bytes = static_cast<uint64_t>(m->extent.width) * m->extent.height * m->extent.depth;
    r.copy_kind = static_cast<uint8_t>(m->kind);
  }
  stream_of(p, r);
}

// cudaMemcpyBatchAsync: all the copies' bytes; their directions are the
// driver's to find (cudaMemcpyDefault).
template <typename P>
void copy_batch(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  if (p->sizes)
    for (size_t i = 0; i < p->count; ++i) r.bytes += p->sizes[i];
  r.copy_kind = cudaMemcpyDefault;
  stream_of(p, r);
}

template <typename P>
void set(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.address = handle(p->devPtr);
  if constexpr (requires { p->height; })
    r.bytes = static_cast<uint64_t>(p->width) * p->height;
  else
    r.bytes = p->count;
  stream_of(p, r);
}

template <typename P>
void sync_stream(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  stream_of(p, r);
}

template <typename P>
void sync_event(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.address = handle(p->event);
  stream_of(p, r);
}

template <typename P>
void allocate(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  void* const* out;
  if constexpr (requires { p->devPtr; })
    out = p->devPtr;
  else if constexpr (requires { p->pHost; })
    out = p->pHost;
  else
    out = p->ptr;
  r.bytes = p->size;
  if (out) r.address = handle(*out);  // the exit callback: filled in
  stream_of(p, r);
}

template <typename P>
void release(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  if constexpr (requires { p->devPtr; })
    r.address = handle(p->devPtr);
  else
    r.address = handle(p->ptr);
  stream_of(p, r);
}

void none(const void*, const CUpti_CallbackData*, ApiRecord&) {}

// Driver API.
template <typename P>
void driver_launch(const P* p, const CUpti_CallbackData* cb, ApiRecord& r) {
  r.kernel = kernel_id(p->f, cb->symbolName);
  r.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
  r.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
  r.shared_mem = p->sharedMemBytes;
  r.stream = handle(p->hStream);
}

void driver_launch_ex(const cuLaunchKernelEx_params* p, const CUpti_CallbackData* cb,
                      ApiRecord& r) {
  r.kernel = kernel_id(p->f, cb->symbolName);
  if (const CUlaunchConfig* c = p->config) {
    r.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
    r.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
    r.shared_mem = c->sharedMemBytes;
    r.stream = handle(c->hStream);
  }
}

void driver_launch_ex_ptsz(const cuLaunchKernelEx_ptsz_params* p, const CUpti_CallbackData* cb,
                           ApiRecord& r) {
  driver_launch_ex(reinterpret_cast<const cuLaunchKernelEx_params*>(p), cb, r);
}

template <uint8_t Kind, typename P>
void driver_copy(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.bytes = p->ByteCount;
  r.copy_kind = Kind;
  stream_of(p, r);
}

// cuMemcpy(Async): unified addressing, the direction is the driver's to find.
template <typename P>
void driver_copy_unified(const P* p, const CUpti_CallbackData* cb, ApiRecord& r) {
  driver_copy<cudaMemcpyDefault>(p, cb, r);
}

template <typename P>
void driver_graph_launch(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  if constexpr (requires { p->hGraphExec; })
    r.address = handle(p->hGraphExec);  // the _ptsz struct's name for it
  else
    r.address = handle(p->hGraph);
  stream_of(p, r);
}

template <uint64_t ElementBytes, typename P>
void driver_set(const P* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.address = p->dstDevice;
  r.bytes = p->N * ElementBytes;
  stream_of(p, r);
}

void driver_sync_event(const cuEventSynchronize_params* p, const CUpti_CallbackData*,
                       ApiRecord& r) {
  r.address = handle(p->hEvent);
}

void driver_allocate(const cuMemAlloc_v2_params* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.bytes = p->bytesize;
  if (p->dptr) r.address = *p->dptr;
}

void driver_release(const cuMemFree_v2_params* p, const CUpti_CallbackData*, ApiRecord& r) {
  r.address = p->dptr;
}

// formats/api_table.h's rows of one CUPTI domain: GPROF_IF_<wanted>_<row's domain>(...) keeps
// its arguments where the two match.
#define GPROF_IF_runtime_runtime(...) __VA_ARGS__
#define GPROF_IF_runtime_driver(...)
#define GPROF_IF_driver_runtime(...)
#define GPROF_IF_driver_driver(...) __VA_ARGS__

template <typename P, typename F>
void read_params(F f, const CUpti_CallbackData* cb, ApiRecord& r) {
  if constexpr (std::is_void_v<P>) {
    f(static_cast<const void*>(nullptr), cb, r);
  } else {
    if (cb->functionParams) f(static_cast<const P*>(cb->functionParams), cb, r);
  }
}

// Fills the record's API and arguments; false for ids outside the tables.
bool describe_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, ApiRecord& r) {
  switch (cbid) {
#define GPROF_CASE(name, id, sym, display, cat, fields, domain, cbid, params, reader, runtimes) \
  GPROF_IF_runtime_##domain(                                                                    \
      case CUPTI_RUNTIME_TRACE_CBID_##cbid                                                      \
      : r.api = ApiId::name;                                                                    \
      read_params<params>([](auto* p, auto* c, ApiRecord& out) { reader(p, c, out); }, cb, r);  \
      return true;)
    GPROF_API_TABLE(GPROF_CASE)
#undef GPROF_CASE
    default:
      return false;
  }
}

bool describe_driver(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, ApiRecord& r) {
  switch (cbid) {
#define GPROF_CASE(name, id, sym, display, cat, fields, domain, cbid, params, reader, runtimes) \
  GPROF_IF_driver_##domain(                                                                     \
      case CUPTI_DRIVER_TRACE_CBID_##cbid                                                       \
      : r.api = ApiId::name;                                                                    \
      read_params<params>([](auto* p, auto* c, ApiRecord& out) { reader(p, c, out); }, cb, r);  \
      return true;)
    GPROF_API_TABLE(GPROF_CASE)
#undef GPROF_CASE
    default:
      return false;
  }
}

#define GPROF_RUNTIME_ID(name, id, sym, display, cat, fields, domain, cbid, params, reader, \
                         runtimes)                                                          \
  GPROF_IF_runtime_##domain(CUPTI_RUNTIME_TRACE_CBID_##cbid, )
#define GPROF_DRIVER_ID(name, id, sym, display, cat, fields, domain, cbid, params, reader, \
                        runtimes)                                                          \
  GPROF_IF_driver_##domain(CUPTI_DRIVER_TRACE_CBID_##cbid, )
constexpr CUpti_CallbackId kRuntimeIds[] = {GPROF_API_TABLE(GPROF_RUNTIME_ID)};
constexpr CUpti_CallbackId kDriverIds[] = {GPROF_API_TABLE(GPROF_DRIVER_ID)};
#undef GPROF_RUNTIME_ID
#undef GPROF_DRIVER_ID

// What ENTER leaves in the call's correlationData slot, so that its EXIT can
// tell it had one: the slot's value is documented only from an ENTER to its
// EXIT (CUpti_CallbackData), and an EXIT without an ENTER (a call already in
// progress when callbacks were enabled) finds whatever an earlier call left.
constexpr uint64_t kEnteredTag = 0x6770726FULL << 32;  // "gpro"
uint64_t entered_mark(const CUpti_CallbackData* cb) {
  return kEnteredTag | cb->correlationId;
}

void on_exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb,
             ThreadState& state) {
  ApiRecord r{};
  const auto describe = [&] {
    return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? describe_runtime(cbid, cb, r)
                                                 : describe_driver(cbid, cb, r);
  };
  const uint64_t start = state.cupti_open_start;
  if (start == 0 || state.cupti_open_id != cb->correlationId ||
      state.cupti_open_domain != static_cast<uint32_t>(domain)) {
    // Nested in the recorded call, or entered while not recording: nothing
    // to do. Never entered: its start is unknown, so it is counted instead.
    if (*cb->correlationData != entered_mark(cb) && recording() && describe())
      losses().add(LossReason::kCuptiUnmatchedExit);
    return;
  }
  state.cupti_open_start = 0;
  if (!describe()) return;
  r.start_ns = start;
  r.end_ns = timestamp();
  r.kind = RecordKind::kApi;
  r.correlation = cb->correlationId;
  if (cb->functionReturnValue) r.result = *static_cast<const int32_t*>(cb->functionReturnValue);
  submit(r);
}

}  // namespace

const CallbackIds kCuptiCallbacks[2] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeIds, sizeof kRuntimeIds / sizeof kRuntimeIds[0]},
    {CUPTI_CB_DOMAIN_DRIVER_API, kDriverIds, sizeof kDriverIds / sizeof kDriverIds[0]},
};

void CUPTIAPI on_cupti_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  ThreadState& state = this_thread();
  // gprof's own driver queries (collector/gpu/driver_probe.h) are not the program's.
  if (state.is_writer) return;
  // Capture windows follow cudaProfilerStart/Stop made through a static
  // runtime too (the interposed hooks handle the others; both are idempotent).
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && state.interposed == nullptr) {
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 &&
        cb->callbackSite == CUPTI_API_ENTER)
      capture_profiler_start();
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 &&
        cb->callbackSite == CUPTI_API_EXIT) {
      on_exit(domain, cbid, cb, state);  // the stop call is the window's last record
      capture_profiler_stop();
      return;
    }
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    *cb->correlationData = entered_mark(cb);
    if (uint64_t* correlation = state.interposed) {
      // The outermost CUPTI call inside the hook is the hook's own call.
      if (*correlation == 0) *correlation = cb->correlationId;
      return;
    }
    if (state.cupti_open_start != 0 || !recording()) return;
    state.cupti_open_id = cb->correlationId;
    state.cupti_open_domain = static_cast<uint32_t>(domain);
    state.cupti_open_start = timestamp() | 1;  // never 0, which means "none open"
    return;
  }
  if (state.interposed != nullptr) return;  // the hook records it
  on_exit(domain, cbid, cb, state);
}

}  // namespace gprof::inject
