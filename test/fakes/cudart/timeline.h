// The simulated device timeline: when each stream's queued work will have finished.
//
// Every operation occupies [start, end) on one stream, with start = max(now, the stream's tail,
// the streams it implicitly depends on). Devices are infinitely wide: work on independent streams
// overlaps freely. Times are CLOCK_MONOTONIC nanoseconds, so simulated work finishes in real time
// and a synchronizing call really waits for it. Not thread-safe: the runtime's lock guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace gprof_fake {

enum class StreamFlavor {
  kLegacy,       // the NULL stream: waits for, and is waited for by, every blocking stream
  kBlocking,     // cudaStreamDefault streams and the per-thread default stream
  kNonBlocking,  // cudaStreamNonBlocking: independent of the NULL stream
};

struct Interval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

class Timeline {
 public:
  explicit Timeline(int device_count);

  // Stream ids are unique for the life of the process, never reused (CUPTI reports them).
  uint32_t LegacyStream(int device) const { return legacy_[static_cast<size_t>(device)]; }
  uint32_t AddStream(int device, StreamFlavor flavor);
  // Work already queued on a removed stream still keeps its device busy.
  void RemoveStream(uint32_t id);

  // Queues `duration_ns` of work on stream `id`, issued by the host at `now_ns`.
  Interval Schedule(uint32_t id, int64_t now_ns, int64_t duration_ns);
  // Later work on `id` starts no earlier than `ready_ns` (cudaStreamWaitEvent).
  void WaitFor(uint32_t id, int64_t ready_ns);

  // When everything a cudaStreamSynchronize on `id` waits for has finished.
  int64_t StreamDoneNs(uint32_t id) const;
  // When every stream of `device` is idle.
  int64_t DeviceDoneNs(int device) const;
  // When every device is idle.
  int64_t AllDoneNs() const;

 private:
  struct Stream {
    int device = 0;
    StreamFlavor flavor = StreamFlavor::kBlocking;
    int64_t tail_ns = 0;  // end of the last queued operation
  };

  // The earliest start of new work on `stream`, ignoring the host clock.
  int64_t ReadyNs(const Stream& stream) const;

  std::unordered_map<uint32_t, Stream> streams_;
  std::vector<uint32_t> legacy_;          // per device
  std::vector<int64_t> removed_tail_ns_;  // per device: latest tail of a removed stream
  uint32_t next_id_ = 1;
};

}  // namespace gprof_fake
