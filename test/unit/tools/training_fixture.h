// A hand-built capture of a training-like loop with NVTX ranges on two
// threads, shared by the analysis tests, the CLI tests and the golden files'
// generator. Round numbers (ns), so that every expected value can be worked
// out by hand:
//
// thread 100 "main" (pid 42; CUPTI SUBSCRIBED):
//   cudaMalloc 4 MiB @0xB000       [1000, 2000)     outside ranges: [memory]
//   cudaMallocHost 1 MiB @0xC000   [2000, 3000)     outside ranges: [memory]
//   cudaMemcpy HtoD        corr 9  [3000, 5000)  -> Memcpy HtoD (Pinned -> Device) 1 MiB [3500,
//   4500) (end of "data loading", id 77, started by thread 200, at 9000) ProfilerStep#0 [10000,
//   30000)
//     forward                      [11000, 20000)
//       aten::mm, seq = 1          [12000, 15000)
//         cudaLaunchKernel corr 1  [12500, 13000) -> square [13000, 17000)
//       aten::mm, seq = 2          [15000, 18000)
//         cudaLaunchKernel corr 2  [15500, 16000) -> square [17000, 21000)
//       cudaMalloc 1 MiB @0xA000   [18500, 19500)
//     backward                     [20000, 28000)
//       cudaLaunchKernel corr 3    [20500, 21000) -> vector_add [21000, 23000)
//       cudaFree @0xA000           [21500, 22000)
//       cudaMemcpyAsync DtoH corr 4 [22500, 23500) -> Memcpy DtoH (Device -> Pinned) 64 KiB [23000,
//       24000) cudaStreamSynchronize corr 5 [24000, 27000) (a sync record: no work)
//   ProfilerStep#1                 [30000, 50000)
//     forward                      [31000, 40000)
//       aten::mm, seq = 3          [32000, 35000)
//         cudaLaunchKernel corr 6  [32500, 33000) -> square [33000, 37000)
//     backward                     [40000, 48000)
//       cudaLaunchKernel corr 7    [40500, 41000) -> vector_add [41000, 43000)
//       cudaMemcpyAsync DtoH corr 8 [42500, 43500) -> Memcpy DtoH (Device -> Pinned) 64 KiB [43500,
//       44500) cudaStreamSynchronize      [44000, 47000)
//   mark "checkpoint" at 49500; an unbalanced pop at 55000
// thread 200 "loader":
//   "data loading" start, id 77    [5000, 9000)  ended on thread 100
//   cudaMemcpyAsync HtoD corr 10   [6000, 7000)  -> Memcpy HtoD (Pageable -> Device) 256 KiB [7000,
//   8000) "prefetch" pushed at 52000, never popped: closed at the footer's 60000
//
// square: grid [4096, 1, 1], block [256, 1, 1], stream 7; vector_add: grid
// [1024, 1, 1], block [128, 1, 1], 512 B dynamic + 1 KiB static shared
// memory, stream 9; copies on stream 7; all on device 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gprof::test {

// The file's bytes, with the header's pid and rank.
std::string training_capture(uint32_t pid = 42, std::string_view rank = "");

// The training capture after a change that made it slower, for the diff
// tests and their golden files (header pid and rank as test_header() has them):
//   - square takes 6000 ns instead of 4000 (Self CUDA +50%): [13000, 19000),
//     [19000, 25000), [33000, 39000);
//   - backward launches scale(float*, float) (corr 3, 7) where it launched
//     vector_add, with vector_add's configuration and times ([25000, 27000),
//     [41000, 43000)): vector_add vanished, scale is new;
//   - backward of ProfilerStep#1 also sets 4 KiB of device memory with
//     cudaMemsetAsync [43600, 43900), corr 11 -> Memset (Device) [44600, 45100):
//     a new API row and a new memset row.
// Everything else (calls, ranges, copies, times) is as in training_capture().
std::string regressed_training_capture();

// training_capture() written to a scratch file `name`; returns its path.
std::string write_training_capture(const std::string& name, uint32_t pid = 42,
                                   std::string_view rank = "");

}  // namespace gprof::test
