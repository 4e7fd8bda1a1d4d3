/* What the fake libcudart.so.13 tells a test harness (the fake CUPTI, unit tests) about the work
 * it simulates. C, so that anything can include it; POD only, so records can be copied into
 * activity buffers as they are.
 *
 * These symbols are not part of the real runtime's ABI: they live in the version node
 * GPROF_FAKE_1 of the fake library. Look them up with dlsym(RTLD_DEFAULT, ...) so that code
 * running on the real runtime simply finds nothing. */
#ifndef GPROF_TEST_FAKES_CUDART_FAKE_GPU_OBSERVER_H_
#define GPROF_TEST_FAKES_CUDART_FAKE_GPU_OBSERVER_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum GprofFakeGpuOpKind {
  GPROF_FAKE_OP_KERNEL = 1,
  GPROF_FAKE_OP_MEMCPY = 2,
  GPROF_FAKE_OP_MEMSET = 3,
};

/* The values of cudaMemcpyKind for the four directions, plus peer-to-peer, which the runtime has
 * no kind for but CUPTI reports separately. Never cudaMemcpyDefault: the fake resolves it. */
enum GprofFakeCopyKind {
  GPROF_FAKE_COPY_HTOH = 0,
  GPROF_FAKE_COPY_HTOD = 1,
  GPROF_FAKE_COPY_DTOH = 2,
  GPROF_FAKE_COPY_DTOD = 3,
  GPROF_FAKE_COPY_PTOP = 5,
};

/* Where the bytes of a copy or set live, as CUPTI's CUpti_ActivityMemoryKind distinguishes them
 * ("Memcpy HtoD (Pageable -> Device)"). Pageable means "not allocated by the runtime". */
enum GprofFakeMemoryKind {
  GPROF_FAKE_MEMORY_UNKNOWN = 0,
  GPROF_FAKE_MEMORY_PAGEABLE = 1,
  GPROF_FAKE_MEMORY_PINNED = 2,
  GPROF_FAKE_MEMORY_DEVICE = 3,
  GPROF_FAKE_MEMORY_MANAGED = 4,
};

/* One simulated GPU operation. Times are CLOCK_MONOTONIC nanoseconds on the simulated device
 * timeline. Fields that do not apply to a kind are zero. */
struct GprofFakeGpuOp {
  uint32_t struct_size; /* sizeof(struct GprofFakeGpuOp) of the library that filled it */
  uint32_t kind;        /* enum GprofFakeGpuOpKind */
  int64_t start_ns;
  int64_t end_ns;
  /* Id of the API call that issued the op (the same id the API observer sees): the runtime call
   * for runtime kernels and sets, the driver call for work issued through libcuda.so.1. A copy
   * carries the id of the driver call that did it, which for a runtime copy is the cuMemcpy* call
   * nested in it (runtime_correlation_id has the runtime call's), as CUPTI's memcpy records do.
   * Every op issued by one cudaGraphLaunch carries that launch's id. Starts at 1 (see
   * GPROF_FAKE_FIRST_CORRELATION_ID), 32 bits, wraps as CUPTI's do. */
  uint32_t correlation_id;
  uint32_t device;
  uint32_t stream_id; /* unique per stream for the life of the process, like CUPTI's */
  /* The cudaStream_t the op ran on: 0 for the legacy default stream, cudaStreamPerThread (0x2)
   * for a per-thread default stream. */
  uint64_t stream_handle;
  uint64_t bytes;     /* copies and sets */
  uint32_t copy_kind; /* enum GprofFakeCopyKind, copies only */
  uint32_t src_kind;  /* enum GprofFakeMemoryKind, copies only */
  uint32_t dst_kind;  /* enum GprofFakeMemoryKind, copies and sets */
  int32_t memset_value;
  /* Mangled device name from __cudaRegisterFunction; valid while the library is loaded. */
  const char* kernel_name;
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t dynamic_shared_bytes;
  uint32_t graph_id;      /* nonzero when the op was replayed by cudaGraphLaunch */
  uint32_t graph_node_id; /* position + 1 of the node in its graph */
  /* Appended (check struct_size before reading): the devices a copy reads from and writes to;
   * they differ only for a peer copy. Equal to `device` for other copies, zero otherwise. */
  uint32_t src_device;
  uint32_t dst_device;
  /* Appended: copies issued by a runtime call, that call's id (correlation_id is then the nested
   * driver call's); 0 otherwise (CUpti_ActivityMemcpy6::runtimeCorrelationId). */
  uint32_t runtime_correlation_id;
};

typedef void (*GprofFakeGpuObserver)(const struct GprofFakeGpuOp* op, void* user_data);

/* Installs (or, with NULL, removes) the observer of GPU operations. Only ops issued while an
 * observer is installed are reported. An op is reported once its simulated end time has passed,
 * at the next runtime API call made by any thread, by a synchronizing call that waited for it,
 * or by gprof_fake_flush_gpu_ops. The observer runs on that thread, outside the fake's lock, in
 * order of end time within one delivery; it may call the runtime. */
void gprof_fake_set_gpu_observer(GprofFakeGpuObserver observer, void* user_data);

/* Delivers the ops that have completed by now; with wait_for_device != 0 it first waits in real
 * time until every issued op has completed, so that nothing stays pending (a forced flush). */
void gprof_fake_flush_gpu_ops(int wait_for_device);

enum GprofFakeApiPhase {
  GPROF_FAKE_API_ENTER = 0,
  GPROF_FAKE_API_EXIT = 1,
};

/* Which API an entry point belongs to, as CUPTI's callback domains split them. */
enum GprofFakeApiDomain {
  GPROF_FAKE_DOMAIN_RUNTIME = 1, /* libcudart.so.13 */
  GPROF_FAKE_DOMAIN_DRIVER = 2,  /* libcuda.so.1, and the driver calls the runtime makes */
};

/* One API entry point being entered or left, as CUPTI's runtime and driver API callbacks report
 * it. The fields after `result` were appended: read them only when struct_size covers them. */
struct GprofFakeApiCall {
  uint32_t struct_size;
  uint32_t phase;   /* enum GprofFakeApiPhase */
  const char* name; /* exported symbol name, e.g. "cudaMemcpyAsync_ptsz"; a global constant */
  uint32_t correlation_id; /* see GprofFakeGpuOp::correlation_id */
  int32_t result;          /* on exit: cudaError_t (runtime) or CUresult (driver); 0 for calls that
                              return no error code */
  uint32_t domain;         /* enum GprofFakeApiDomain */
  /* CUPTI_RUNTIME_TRACE_CBID_* (cupti_runtime_cbid.h) or CUPTI_DRIVER_TRACE_CBID_*
   * (cupti_driver_cbid.h) of the entry point; 0 if CUPTI has none. */
  uint32_t cbid;
  /* The entry point's arguments laid out as CUPTI's CUpti_CallbackData::functionParams
   * (generated_cuda_runtime_api_meta.h, generated_cuda_meta.h, fake_cupti_params.h); NULL where
   * the fake provides none. Valid at ENTER and at EXIT; out-parameters point to the caller's
   * variables, so at EXIT they hold the results. */
  const void* params;
  /* Launches: the mangled kernel name (CUpti_CallbackData::symbolName); NULL otherwise. */
  const char* symbol_name;
  int64_t enter_ns; /* CLOCK_MONOTONIC at entry, set at ENTER and EXIT */
  int64_t exit_ns;  /* CLOCK_MONOTONIC at return, EXIT only */
  uint32_t device;  /* the calling thread's current device at entry */
  /* EXIT only: the timeline stream id (GprofFakeGpuOp::stream_id) of the stream the call worked
   * on or waited for, 0 when it names none (cudaDeviceSynchronize, cudaEventSynchronize...). */
  uint32_t stream_id;
};

typedef void (*GprofFakeApiObserver)(const struct GprofFakeApiCall* call, void* user_data);

/* Installs (or removes) the observer of API calls, runtime and driver; it runs on the calling
 * thread, never with the fake's lock held. Inside a runtime launch (cudaLaunchKernel and its
 * family), cudaGraphLaunch and cudaDeviceSynchronize it also sees the driver call the real
 * runtime makes (cuLaunchKernel, cuLaunchKernelEx, cuGraphLaunch, cuCtxSynchronize), nested
 * between the runtime call's ENTER and EXIT with a correlation id of its own. */
void gprof_fake_set_api_observer(GprofFakeApiObserver observer, void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* GPROF_TEST_FAKES_CUDART_FAKE_GPU_OBSERVER_H_ */
