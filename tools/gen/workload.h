// gpuprof-gen's model of a training run: the records one rank's process
// writes, made without running anything and encoded with the shim's own
// encoder (formats/write/frame_encoder.h), so that benchmarks and tests of the
// readers do not depend on the fake runtime's speed (issue 13 item 5).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace gprof::gen {

struct Settings {
  uint64_t records = 0;  // exactly this many records (API + GPU + NVTX events) in the file
  uint32_t rank = 0;
  uint32_t ranks = 1;
  uint32_t threads = 4;  // recording threads in the process
  uint64_t seed = 1;
  uint32_t ops_per_step = 400;  // top-level ops of the main thread per ProfilerStep range
  // The first call's CUPTI correlation id. The ids are 32-bit
  // (CUpti_ActivityKernel9::correlationId in cupti_activity.h is a uint32_t)
  // and wrap past 4294967295; 0 means "none" in a sidecar file, so the
  // generator goes on at 1. A value near 2^32 makes a file whose ids wrap.
  uint32_t first_correlation = 1;
  // How long CUPTI holds a full buffer before the file gets it: a GPU that
  // falls behind its calls (a training loop that queues work) has its
  // records delivered that much after them. 0: within a frame or two.
  uint64_t gpu_lag_ns = 0;
  // A straggler: rank `slow_rank` waits `slow_ns` for its data at the start
  // of each step (in a DataLoader range), and the other ranks wait as long
  // in each step's all-reduce, as synchronous data parallelism makes them.
  uint32_t slow_rank = UINT32_MAX;
  uint64_t slow_ns = 0;
  // Where the all-reduce runs: false, after the optimizer on the main
  // stream (no compute beside it); true, from the middle of the step on a
  // stream of its own while the step's compute goes on (as DDP's buckets
  // run during the backward pass), the optimizer waiting for it.
  bool overlapped_comm = false;
  // Capture windows (GPROF_CAPTURE=cudaProfilerApi), by ProfilerStep#N:
  // [start, stop) opens before step `start` begins and closes once step
  // `stop - 1` has ended. Empty: no window, everything recorded. With
  // windows, `records` are the run's, and only those made while a window
  // is open are written (the shim records nothing else); the GPU records of
  // calls made outside still come when their work starts while CUPTI's
  // kinds are on: queued before a window opens, or issued just after it
  // closes (the shim stops recording before it turns the kinds off).
  std::vector<std::pair<uint64_t, uint64_t>> capture_steps;
  // Another tool (torch.profiler's kineto) holds CUPTI from before step
  // `start` until step `stop - 1` has ended, as many times as listed. At
  // the first, gprof gives CUPTI's subscriber up and pushes its own ids
  // (formats/correlation_ids.h) around every call from then on; each stay
  // is a CUPTI gap: the GPU records and external correlations of the calls
  // made in it go to the other tool. After it, the GPU records carry
  // CUPTI's ids, and external correlations (in the same buffers, after the
  // records) map them to the pushed ids. `records` are the run's.
  std::vector<std::pair<uint64_t, uint64_t>> takeover_steps;
  // Each step is also a start/end range ("train_step", nvtxRangeStartA /
  // nvtxRangeEnd, as code that times spans across threads marks them),
  // started after ProfilerStep#N is pushed and ended before it is popped:
  // a window over every thread's events for --range train_step.
  bool start_end = false;
};

struct Counts {
  uint64_t api = 0;     // API call records
  uint64_t gpu = 0;     // GPU activity records
  uint64_t ranges = 0;  // NVTX events (push, pop, mark, thread name)
  uint64_t launches = 0;
  uint64_t graph_launches = 0;
  uint64_t steps = 0;
  uint64_t frames = 0;  // header and footer included
  uint64_t bytes = 0;
  uint64_t records() const { return api + gpu + ranges; }
};

// The fewest records a file can hold (the setup and teardown calls, the
// threads' names).
uint64_t minimum_records(const Settings& settings);

// Writes one rank's sidecar file to `out`; false (and `error`) when writing fails.
bool write_rank(const Settings& settings, std::FILE* out, Counts& counts, std::string& error);

}  // namespace gprof::gen
