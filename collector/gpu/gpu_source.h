// Where the writer gets GPU activity from. The CUPTI session implements it;
// the writer stays free of CUDA headers, so collector/ builds without CUDA.
#pragma once

#include <cstdint>

#include "collector/gpu/takeover_watchdog.h"
#include "formats/record.h"

namespace gprof {

// Receives parsed activity on the writer thread.
class GpuSink {
 public:
  virtual ~GpuSink() = default;
  // `kernel_name` is CUPTI's (mangled) name for kernels, else nullptr; valid
  // only during the call. The sink fills record.kernel.
  virtual void gpu(GpuRecord& record, const char* kernel_name) = 0;
  virtual void external_correlation(uint64_t correlation, uint64_t external_id) = 0;
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // Writer thread: parses the buffers CUPTI completed into `sink`; returns
  // the GPU records delivered.
  virtual uint64_t drain(GpuSink& sink) = 0;
  // Writer thread, every pass: asks CUPTI for finished buffers now and then,
  // and collects its dropped-record count. Does nothing after the exit flush.
  // Records it has to parse meanwhile (to free a buffer CUPTI asks for) go
  // to `sink`, and count in the next drain()'s return.
  virtual void poll(uint64_t now_ns, GpuSink& sink) = 0;
  // The same, whatever the time since the last one: the writer's final pass.
  virtual void poll_now(GpuSink& sink) = 0;
  // Writer thread: runs `call`, which calls into CUDA (collector/gpu/driver_probe.h),
  // as poll() runs its flush: CUPTI may deliver records into a buffer request
  // on this thread (parsed into `sink` to free one), and a thread waiting for
  // a buffer gets one past the cap meanwhile. False, without calling, while a
  // thread waits for a buffer (it may hold a lock the call needs).
  virtual bool call_into_cuda(GpuSink& sink, void (*call)(void*), void* context) = 0;
  // Writer thread, every pass before poll(): the calls it drained that issue
  // GPU work or wait for it (collector/gpu/takeover_watchdog.h).
  virtual void calls_drained(const TakeoverWatchdog::Calls& calls) = 0;
  // Any thread: the capture window opened or closed (collector/process/capture_window.h).
  // GPU activity is collected only while it is open: the calling thread
  // turns the activity kinds on or off at once (a launch right after an open
  // must have its record, one right after a close must have none).
  virtual void window_changed(bool open) = 0;
};

}  // namespace gprof
