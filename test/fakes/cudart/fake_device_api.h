/* The fake runtime's simulated device as the fake driver (test/fakes/cuda, libcuda.so.1) and the
 * fake CUPTI (test/fakes/cupti) reach it, so that runtime work, driver work and what CUPTI reports
 * all live on one timeline with one correlation-id counter. Like fake_gpu_observer.h these
 * symbols are not part of any real ABI: they live in the version node GPROF_FAKE_1.
 *
 * Functions returning int return a CUresult value (cuda.h), which the driver passes on as is. A
 * `stream` is a CUstream / cudaStream_t: NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a stream
 * the runtime created; `per_thread` != 0 makes NULL mean the per-thread default stream (the
 * _ptsz / _ptds entry points). */
#ifndef GPROF_TEST_FAKES_CUDART_FAKE_DEVICE_API_H_
#define GPROF_TEST_FAKES_CUDART_FAKE_DEVICE_API_H_

#include <stdint.h>

#include "fake_gpu_observer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What cuInit does before anything else: the CUDA_INJECTION64_PATH injection, once per process
 * and shared with the runtime's first call; then whether a device can be used
 * (CUDA_ERROR_NO_DEVICE with GPROF_FAKE_DEVICES=0, CUDA_ERROR_NOT_INITIALIZED in the child of a
 * fork made after the parent used the device). */
int gprof_fake_driver_init(void);

/* Whether the driver has been initialized in this process: by cuInit, or by the runtime, which
 * initializes it on its first call that needs the device. Driver calls fail before that. */
int gprof_fake_driver_initialized(void);

/* Whether the driver has shut down: from the runtime's exit handler on (injection.cc), which
 * runs before the handlers registered before CUDA initialized. Driver calls then fail with
 * CUDA_ERROR_DEINITIALIZED. */
int gprof_fake_driver_deinitialized(void);

/* What cuDriverGetVersion reports (GPROF_FAKE_DRIVER_VERSION). */
int gprof_fake_driver_version(void);

/* A driver entry point's bookkeeping, shared with the runtime's: the caller fills name, cbid,
 * params and symbol_name. Enter fills the rest (domain DRIVER, a fresh correlation id from the
 * runtime's counter, enter_ns, device), delivers completed GPU ops and notifies ENTER; exit
 * records `result` and exit_ns and notifies EXIT. Work issued between the two (the functions
 * below) reports its stream on `call`. Calls nest per thread, like function calls. */
void gprof_fake_api_enter(struct GprofFakeApiCall* call);
void gprof_fake_api_exit(struct GprofFakeApiCall* call, int32_t result);

/* Devices and their primary contexts. A context handle is stable for the life of the process and
 * never NULL for a valid device; gprof_fake_context_device maps it back (-1 if it is not one). */
int gprof_fake_device_count(void);
int gprof_fake_device_name(int device, char* name, int length);
/* cuDeviceGetAttribute, cuDeviceTotalMem_v2, cuDeviceGetPCIBusId: from the same properties as
 * cudaGetDeviceProperties (CUdevice_attribute values equal cudaDeviceAttr's, cuda.h and
 * driver_types.h; the PCI id is "0000:BB:00.0" with BB the device's pciBusID, as the driver
 * formats it). */
int gprof_fake_device_attribute(int device, int attribute, int* value);
int gprof_fake_device_total_memory(int device, uint64_t* bytes);
int gprof_fake_device_pci_bus_id(int device, char* id, int length);
void* gprof_fake_primary_context(int device);
int gprof_fake_context_device(const void* context);
/* The calling thread's current device, shared with cudaSetDevice / cudaGetDevice. */
int gprof_fake_current_device(void);
void gprof_fake_set_current_device(int device);

/* A kernel known only by its mangled name, as cuModuleGetFunction returns one: the same handle
 * for the same name, valid for the life of the process. */
const void* gprof_fake_kernel_by_name(const char* name);
const char* gprof_fake_kernel_name(const void* kernel);

/* Device work on behalf of the driver call `correlation_id`, with the runtime's rules (see
 * test/fakes/README.md): validation, durations, host blocking. */
int gprof_fake_launch(uint32_t correlation_id, const void* kernel, const uint32_t grid[3],
                      const uint32_t block[3], uint64_t shared_bytes, void* stream, int per_thread);
int gprof_fake_malloc(void** ptr, uint64_t bytes);
/* Waits for the device first, as cudaFree does. */
int gprof_fake_free(void* ptr);
/* A synchronous copy in direction `kind` (enum GprofFakeCopyKind: HTOD, DTOH, DTOD, HTOH). */
int gprof_fake_memcpy(uint32_t correlation_id, void* dst, const void* src, uint64_t bytes, int kind,
                      int per_thread);
/* Sets `count` 32-bit words to `value`; synchronous only for non-device memory, like cudaMemset. */
int gprof_fake_memset_d32(uint32_t correlation_id, void* dst, uint32_t value, uint64_t count,
                          int per_thread);
int gprof_fake_synchronize_device(void);
int gprof_fake_synchronize_stream(void* stream, int per_thread);

/* The timeline id (GprofFakeGpuOp::stream_id) of `stream`; NULL means the legacy stream of
 * `device`, or with per_thread its per-thread default stream for the calling thread. */
int gprof_fake_stream_id(int device, void* stream, int per_thread, uint32_t* id);

#ifdef __cplusplus
}
#endif

#endif /* GPROF_TEST_FAKES_CUDART_FAKE_DEVICE_API_H_ */
