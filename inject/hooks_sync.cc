// The synchronize family: where the host waits for the device.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

using namespace gprof::inject;
using gprof::ApiId;

extern "C" {

cudaError_t CUDARTAPI GPROF_HOOK(cudaDeviceSynchronize)() {
  auto real = REAL(cudaDeviceSynchronize);
  if (!real) return kMissing;
  ApiCall call(ApiId::cudaDeviceSynchronize);
  return call.finish(real());
}

#define STREAM_SYNC_HOOK(name)                                  \
  cudaError_t CUDARTAPI GPROF_HOOK(name)(cudaStream_t stream) { \
    auto real = REAL(name);                                     \
    if (!real) return kMissing;                                 \
    ApiCall call(ApiId::name);                                  \
    cudaError_t result = real(stream);                          \
    call.record().stream = handle(stream);                      \
    return call.finish(result);                                 \
  }

STREAM_SYNC_HOOK(cudaStreamSynchronize)
STREAM_SYNC_HOOK(cudaStreamSynchronize_ptsz)

cudaError_t CUDARTAPI GPROF_HOOK(cudaEventSynchronize)(cudaEvent_t event) {
  auto real = REAL(cudaEventSynchronize);
  if (!real) return kMissing;
  ApiCall call(ApiId::cudaEventSynchronize);
  cudaError_t result = real(event);
  call.record().address = handle(event);
  return call.finish(result);
}

#define WAIT_EVENT_HOOK(name)                                                    \
  cudaError_t CUDARTAPI GPROF_HOOK(name)(cudaStream_t stream, cudaEvent_t event, \
                                         unsigned int flags) {                   \
    auto real = REAL(name);                                                      \
    if (!real) return kMissing;                                                  \
    ApiCall call(ApiId::name);                                                   \
    cudaError_t result = real(stream, event, flags);                             \
    call.record().stream = handle(stream);                                       \
    call.record().address = handle(event);                                       \
    return call.finish(result);                                                  \
  }

WAIT_EVENT_HOOK(cudaStreamWaitEvent)
WAIT_EVENT_HOOK(cudaStreamWaitEvent_ptsz)

}  // extern "C"
