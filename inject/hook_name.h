// The hooks are compiled once per libcudart major (inject/meson.build:
// GPROF_CUDART_MAJOR). GPROF_HOOK(cudaMalloc) names this build's definition
// (gprof13_cudaMalloc) and exports it as cudaMalloc@libcudart.so.12, or as
// cudaMalloc@@libcudart.so.13 (the default, which unversioned callers get):
// each caller reaches the runtime it was linked against, even in a process
// that holds both (a cu12 PyTorch wheel beside an extension built with CUDA
// 13). The plain gprofNN_ names stay local (the version script's `local: *`).
#pragma once

#ifndef GPROF_CUDART_MAJOR
#error "hooks are compiled with GPROF_CUDART_MAJOR (12 or 13)"
#endif

#if GPROF_CUDART_MAJOR == 12
#define GPROF_HOOK_VERSION "@libcudart.so.12"
#elif GPROF_CUDART_MAJOR == 13
#define GPROF_HOOK_VERSION "@@libcudart.so.13"
#else
#error "GPROF_CUDART_MAJOR must be 12 or 13"
#endif

#define GPROF_HOOK_CAT2(major, name) gprof##major##_##name
#define GPROF_HOOK_CAT(major, name) GPROF_HOOK_CAT2(major, name)
// Default visibility: the versioned name takes the definition's.
#define GPROF_HOOK(name)                                                   \
  __attribute__((visibility("default"), symver(#name GPROF_HOOK_VERSION))) \
  GPROF_HOOK_CAT(GPROF_CUDART_MAJOR, name)
