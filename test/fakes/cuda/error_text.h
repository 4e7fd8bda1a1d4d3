// The names and descriptions cuGetErrorName / cuGetErrorString give for the results the fake
// driver can return, with the real driver's texts.
#pragma once

#include "cuda_driver_abi.h"

namespace gprof_fake_driver {

struct DriverErrorText {
  CUresult code;
  const char* name;
  const char* description;
};

// Null for a code the fake does not know; the real driver then fails with
// CUDA_ERROR_INVALID_VALUE.
const DriverErrorText* FindDriverErrorText(CUresult code);

}  // namespace gprof_fake_driver
