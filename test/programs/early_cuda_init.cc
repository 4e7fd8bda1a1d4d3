// libearly_cuda_init: a library whose constructor initializes CUDA, linked to early_init_main.
// Constructors of a program's libraries run before the preload's, so the driver reads
// CUDA_INJECTION64_PATH before gprof sets it (docs/architecture.md §3.1):
// InitializeInjection never runs.
#include <cuda.h>

namespace {

CUresult g_result = CUDA_ERROR_NOT_INITIALIZED;

__attribute__((constructor)) void InitializeCudaEarly() {
  g_result = cuInit(0);
}

}  // namespace

// What cuInit returned in the constructor (0: CUDA_SUCCESS).
extern "C" __attribute__((visibility("default"))) int early_cuda_init_result() {
  return static_cast<int>(g_result);
}
