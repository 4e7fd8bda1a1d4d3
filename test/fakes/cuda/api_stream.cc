// Stream synchronization through the driver. Streams themselves are the runtime's: a CUstream
// and a cudaStream_t are the same handle.
#include "driver_call.h"

extern "C" CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  const cuStreamSynchronize_params params{hStream};
  gprof_fake_driver::DriverCall call("cuStreamSynchronize",
                                     CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_synchronize_stream(hStream, 0));
}

extern "C" CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream) {
  const cuStreamSynchronize_ptsz_params params{hStream};
  gprof_fake_driver::DriverCall call("cuStreamSynchronize_ptsz",
                                     CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_synchronize_stream(hStream, 1));
}
