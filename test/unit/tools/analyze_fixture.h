// A hand-built capture in which every `gpuprof analyze` rule fires, for the
// analyze golden files and unit tests. One thread (tid 100, "main"), device
// 0, stream 7, 10 steps "ProfilerStep#i" of 10 ms each, step i starting at
// T = 1 ms + i * 10 ms (all times below from T):
//   data_loader   [0, 5ms)       cudaMemcpy HtoD 256 KiB from pageable memory,
//                                call [4.00, 4.10ms), GPU [4.02, 4.08ms)
//   upload_params [5, 5.5ms)     6 x cudaMemcpyAsync HtoD 1 KiB from pinned memory,
//                                calls of 10 us every 20 us from 5ms, GPU 2 us each
//   forward       [5.5, 8ms)     10 x tiny_op: launches of 5 us every 150 us from
//                                5.5ms, kernels of 10 us from 5 us after each call;
//                                loss_kernel launched at 6.9ms, runs [6.91, 7.8ms);
//                                cudaStreamSynchronize [7.0, 7.8ms) waits for it
//   read_loss     [8, 9ms)       loss_reduce launched at 8.0ms, runs [8.01, 8.5ms);
//                                cudaMemcpy DtoH 4 B into pinned memory, call
//                                [8.02, 8.51ms), GPU [8.5, 8.502ms)
// So: 10 pageable copies; 70 small ones (median 1 KiB); 29 blocking calls
// followed by more work (the last step's read has none after it: 13.41 ms,
// 14.2% of the 94.51 ms window from the first call to the last); 120 launches,
// 100 of them shorter than the 150 or 50 us to the next (the pauses of 1.1
// and 7.5 ms after loss_kernel and loss_reduce are over launch-bound's
// max_interval); 9 idle gaps of 5.518 ms (from the last copy of a step to the
// pageable copy of the next, mostly in data_loader); 10 device-to-host copies
// that waited for loss_reduce.
#pragma once

#include <cstdint>
#include <string>

namespace gprof::test {

std::string analyze_capture();

// The same steps `setup_ns` later, after a setup phase as a training script
// has (imports, model building): one cudaMemcpy HtoD of 1 MiB from pinned
// memory, call [200, 500us), GPU [250, 450us), then nothing until the first
// step, at 1 ms + setup_ns.
std::string analyze_capture_after_setup(uint64_t setup_ns);

// Two phases of one thread (tid 100), device 0, stream 7: "forward", 300
// launches of big_kernel (200 us) every 205 us from 1 ms, then "optimizer",
// 2000 launches of tiny_update (1 us) every 10 us. Over the run the GPU is
// busy 76% of the time between launches (62 of 81.5 ms); in "optimizer",
// 10%. `names_last`: the kernels' names in the last frame, after the records
// that use them (as a damaged file's frames can come).
std::string launch_phases_capture(bool names_last = false);

// Two threads (tids 100 and 101) launching tiny_update (1 us, from 2 us after
// its call) onto one GPU, 99 launches each every 10 us from 1 ms, thread 101
// 5 us after thread 100: each waits 9 us after each kernel, but they wait
// at the same time: the GPU was idle 984 us in all (from 3 us after the first
// launch to 17 us after the 98th of thread 101), not 2 x 98 x 9 us.
std::string two_thread_launches_capture();

// Ten steps "ProfilerStep#i" of 10 ms from 1 ms, then "eval", no step. Each
// step: a launch of step_kernel at its start (3 ms on the GPU from 10 us
// after), cudaStreamSynchronize [50 us, 3.05 ms) waiting for it, then CPU
// work with the GPU idle to the step's end. "eval" [101, 401 ms): 300
// launches of eval_kernel (1 ms) every 1 ms, back to back on the GPU. So the
// window (1 to 401.01 ms) is 17.5% idle (ten gaps of 7 ms) and its one thread
// 7.5% blocked: under gpu-idle's 30% and excessive-sync's 10%; the median
// step is 70% idle (7 ms: 10 us before its kernel starts, 6.99 ms after it
// ends) and 30% blocked.
std::string steps_then_eval_capture();

}  // namespace gprof::test
