// The ABI the fake driver implements: CUDA's own declarations, so every exported definition is
// checked against the real signature by the compiler.
#pragma once

// As in the real driver's build: cuda.h then declares the versioned names programs link against
// (cuMemAlloc_v2, cuMemcpyHtoD_v2, cuLaunchKernel_ptsz...) next to the legacy ones, and
// generated_cuda_meta.h (CUPTI's parameter structs) finds the _v1 types it refers to.
#define __CUDA_API_VERSION_INTERNAL 1

#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>
