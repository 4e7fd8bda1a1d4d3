// cudaProfilerStart/Stop: recorded as calls; capture windows build on them.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/real_function.h"

using namespace gprof::inject;
using gprof::ApiId;

extern "C" {

cudaError_t CUDARTAPI cudaProfilerStart() {
  auto real = REAL(cudaProfilerStart);
  if (!real) return kMissing;
  ApiCall call(ApiId::cudaProfilerStart);
  return call.finish(real());
}

cudaError_t CUDARTAPI cudaProfilerStop() {
  auto real = REAL(cudaProfilerStop);
  if (!real) return kMissing;
  ApiCall call(ApiId::cudaProfilerStop);
  return call.finish(real());
}

}  // extern "C"
