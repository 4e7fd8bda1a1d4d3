// The training capture of ../training_fixture.h after a change that made it
// slower, for the diff tests and their golden files:
//   - square takes 6000 ns instead of 4000 (Self CUDA +50%): [13000, 19000),
//     [19000, 25000), [33000, 39000);
//   - backward launches scale(float*, float) (corr 3, 7) where it launched
//     vector_add, with vector_add's configuration and times ([25000, 27000),
//     [41000, 43000)): vector_add vanished, scale is new;
//   - backward of ProfilerStep#1 also sets 4 KiB of device memory with
//     cudaMemsetAsync [43600, 43900), corr 11 -> Memset (Device) [44600, 45100):
//     a new API row and a new memset row.
// Everything else (calls, ranges, copies, times) is as in the training capture.
#pragma once

#include <string>

namespace gprof::test {

std::string regressed_training_capture();

}  // namespace gprof::test
