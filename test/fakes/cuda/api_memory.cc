// Device memory through the driver: allocation, synchronous copies and 32-bit sets, on the fake
// runtime's memory and timeline. A CUdeviceptr is the fake's device pointer as an integer.
#include "driver_call.h"

namespace gprof_fake_driver {
namespace {

void* AsPointer(CUdeviceptr ptr) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
}

CUresult Copy(const DriverCall& call, void* dst, const void* src, size_t bytes,
              GprofFakeCopyKind kind, bool per_thread) {
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return error;
  return static_cast<CUresult>(
      gprof_fake_memcpy(call.correlation_id(), dst, src, bytes, kind, per_thread ? 1 : 0));
}

CUresult SetD32(const DriverCall& call, CUdeviceptr dst, unsigned value, size_t count,
                bool per_thread) {
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return error;
  return static_cast<CUresult>(gprof_fake_memset_d32(call.correlation_id(), AsPointer(dst), value,
                                                     count, per_thread ? 1 : 0));
}

}  // namespace
}  // namespace gprof_fake_driver

using gprof_fake_driver::AsPointer;
using gprof_fake_driver::DriverCall;

extern "C" CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  const cuMemAlloc_v2_params params{dptr, bytesize};
  DriverCall call("cuMemAlloc_v2", CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (dptr == nullptr || bytesize == 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  void* ptr = nullptr;
  const int result = gprof_fake_malloc(&ptr, bytesize);
  if (result == CUDA_SUCCESS) *dptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
  return call.Return(result);
}

extern "C" CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
  const cuMemFree_v2_params params{dptr};
  DriverCall call("cuMemFree_v2", CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_free(AsPointer(dptr)));
}

extern "C" CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost,
                                            size_t ByteCount) {
  const cuMemcpyHtoD_v2_params params{dstDevice, srcHost, ByteCount};
  DriverCall call("cuMemcpyHtoD_v2", CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, &params);
  return call.Return(gprof_fake_driver::Copy(call, AsPointer(dstDevice), srcHost, ByteCount,
                                             GPROF_FAKE_COPY_HTOD, false));
}

extern "C" CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost,
                                                 size_t ByteCount) {
  const cuMemcpyHtoD_v2_ptds_params params{dstDevice, srcHost, ByteCount};
  DriverCall call("cuMemcpyHtoD_v2_ptds", CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, &params);
  return call.Return(gprof_fake_driver::Copy(call, AsPointer(dstDevice), srcHost, ByteCount,
                                             GPROF_FAKE_COPY_HTOD, true));
}

extern "C" CUresult CUDAAPI cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice,
                                            size_t ByteCount) {
  const cuMemcpyDtoH_v2_params params{dstHost, srcDevice, ByteCount};
  DriverCall call("cuMemcpyDtoH_v2", CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, &params);
  return call.Return(gprof_fake_driver::Copy(call, dstHost, AsPointer(srcDevice), ByteCount,
                                             GPROF_FAKE_COPY_DTOH, false));
}

extern "C" CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice,
                                                 size_t ByteCount) {
  const cuMemcpyDtoH_v2_ptds_params params{dstHost, srcDevice, ByteCount};
  DriverCall call("cuMemcpyDtoH_v2_ptds", CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, &params);
  return call.Return(gprof_fake_driver::Copy(call, dstHost, AsPointer(srcDevice), ByteCount,
                                             GPROF_FAKE_COPY_DTOH, true));
}

extern "C" CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  const cuMemsetD32_v2_params params{dstDevice, ui, N};
  DriverCall call("cuMemsetD32_v2", CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, &params);
  return call.Return(gprof_fake_driver::SetD32(call, dstDevice, ui, N, false));
}

extern "C" CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  const cuMemsetD32_v2_ptds_params params{dstDevice, ui, N};
  DriverCall call("cuMemsetD32_v2_ptds", CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, &params);
  return call.Return(gprof_fake_driver::SetD32(call, dstDevice, ui, N, true));
}
