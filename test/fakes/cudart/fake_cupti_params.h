/* CUPTI parameter structs (CUpti_CallbackData::functionParams) for the CUDA 13 launch entry
 * points that generated_cuda_runtime_api_meta.h does not publish. CUPTI 13.0 has callback ids for
 * them (CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 and its _ptsz twin) but no struct in
 * the toolkit headers. The layout follows the rule every generated struct follows: the
 * function's parameters, in order, with their declared types. A profiler that reads them has to
 * declare the same struct itself. */
#ifndef GPROF_TEST_FAKES_CUDART_FAKE_CUPTI_PARAMS_H_
#define GPROF_TEST_FAKES_CUDART_FAKE_CUPTI_PARAMS_H_

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __cudaLaunchKernel_v13000_params_st {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
} __cudaLaunchKernel_v13000_params;

typedef struct __cudaLaunchKernel_ptsz_v13000_params_st {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
} __cudaLaunchKernel_ptsz_v13000_params;

#ifdef __cplusplus
}
#endif

#endif /* GPROF_TEST_FAKES_CUDART_FAKE_CUPTI_PARAMS_H_ */
