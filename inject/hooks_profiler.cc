// cudaProfilerStart/Stop: recorded as calls; capture windows build on them.
#include "collector/process/capture_window.h"
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

using namespace gprof::inject;
using gprof::ApiId;

extern "C" {

cudaError_t CUDARTAPI GPROF_HOOK(cudaProfilerStart)() {
  auto real = REAL(cudaProfilerStart);
  if (!real) return kMissing;
  gprof::capture_profiler_start();  // first, so that this call opens the window it starts
  ApiCall call(ApiId::cudaProfilerStart);
  return call.finish(real());
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaProfilerStop)() {
  auto real = REAL(cudaProfilerStop);
  if (!real) return kMissing;
  cudaError_t result;
  {
    ApiCall call(ApiId::cudaProfilerStop);
    result = call.finish(real());
  }
  gprof::capture_profiler_stop();  // after: the stop call is the window's last record
  return result;
}

}  // extern "C"
