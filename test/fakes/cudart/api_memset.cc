// The cudaMemset family; transfer.cc does the work.
#include "api_call.h"
#include "cuda_abi.h"
#include "transfer.h"

namespace gprof_fake {
namespace {

SetArgs Linear(void* dst, int value, size_t count) {
  SetArgs args;
  args.dst = dst;
  args.pitch = count;
  args.value = value;
  args.width = count;
  return args;
}

SetArgs Pitched(void* dst, size_t pitch, int value, size_t width, size_t height) {
  SetArgs args;
  args.dst = dst;
  args.pitch = pitch;
  args.value = value;
  args.width = width;
  args.height = height;
  return args;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;
using gprof_fake::HostBlocking;
using gprof_fake::Set;

extern "C" cudaError_t CUDARTAPI cudaMemset(void* devPtr, int value, size_t count) {
  const cudaMemset_v3020_params params{devPtr, value, count};
  ApiCall call("cudaMemset", CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, &params);
  return call.Return(Set(call.correlation_id(), gprof_fake::Linear(devPtr, value, count), nullptr,
                         false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemset_ptds(void* devPtr, int value, size_t count) {
  const cudaMemset_ptds_v7000_params params{devPtr, value, count};
  ApiCall call("cudaMemset_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, &params);
  return call.Return(Set(call.correlation_id(), gprof_fake::Linear(devPtr, value, count), nullptr,
                         true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemsetAsync(void* devPtr, int value, size_t count,
                                                 cudaStream_t stream) {
  const cudaMemsetAsync_v3020_params params{devPtr, value, count, stream};
  ApiCall call("cudaMemsetAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &params);
  return call.Return(Set(call.correlation_id(), gprof_fake::Linear(devPtr, value, count), stream,
                         false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count,
                                                      cudaStream_t stream) {
  const cudaMemsetAsync_ptsz_v7000_params params{devPtr, value, count, stream};
  ApiCall call("cudaMemsetAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
               &params);
  return call.Return(Set(call.correlation_id(), gprof_fake::Linear(devPtr, value, count), stream,
                         true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width,
                                              size_t height) {
  const cudaMemset2D_v3020_params params{devPtr, pitch, value, width, height};
  ApiCall call("cudaMemset2D", CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020, &params);
  return call.Return(Set(call.correlation_id(),
                         gprof_fake::Pitched(devPtr, pitch, value, width, height), nullptr, false,
                         HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemset2D_ptds(void* devPtr, size_t pitch, int value,
                                                   size_t width, size_t height) {
  const cudaMemset2D_ptds_v7000_params params{devPtr, pitch, value, width, height};
  ApiCall call("cudaMemset2D_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000, &params);
  return call.Return(Set(call.correlation_id(),
                         gprof_fake::Pitched(devPtr, pitch, value, width, height), nullptr, true,
                         HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemset2DAsync(void* devPtr, size_t pitch, int value,
                                                   size_t width, size_t height,
                                                   cudaStream_t stream) {
  const cudaMemset2DAsync_v3020_params params{devPtr, pitch, value, width, height, stream};
  ApiCall call("cudaMemset2DAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020, &params);
  return call.Return(Set(call.correlation_id(),
                         gprof_fake::Pitched(devPtr, pitch, value, width, height), stream, false,
                         HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value,
                                                        size_t width, size_t height,
                                                        cudaStream_t stream) {
  const cudaMemset2DAsync_ptsz_v7000_params params{devPtr, pitch, value, width, height, stream};
  ApiCall call("cudaMemset2DAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000,
               &params);
  return call.Return(Set(call.correlation_id(),
                         gprof_fake::Pitched(devPtr, pitch, value, width, height), stream, true,
                         HostBlocking::kAsync));
}
