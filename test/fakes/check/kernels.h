// Kernels for the checks, registered with the fake runtime the way nvcc-generated code does it,
// so that cudaLaunchKernel knows them by their host stubs.
#pragma once

namespace fake_check {

// The host stub of a new kernel with mangled name `name` (a string literal).
const void* RegisterKernel(const char* name);

}  // namespace fake_check
