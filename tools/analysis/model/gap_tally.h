// What the GPU records of a file being streamed look like around its CUPTI
// gaps (intervals when another tool had CUPTI, CuptiStatus.gaps): the
// GapCounts that profile.cc counts from a whole file in memory, counted as
// the records come, in memory that follows the gaps rather than the file.
//
// A gap is known once a CuptiStatus listing it is read, which the writer
// does when the gap opens: records read before that may have started after
// it. The last few GPU starts and launches are kept (a ring) for that; a
// gap that opened before records already pushed out of the ring started
// cannot be counted exactly: the file is then read in memory (why()).
// Until a gap's end is read, the GPU records that started after its start
// wait in the gap, and the last launches made after it are kept in a ring
// so that those that turn out to be after its end can be taken back; a gap
// still open when the file ends lasts to the end, as profile.cc takes it.
//
// A launch is without GPU records when no work record paired with it: its
// call's id is asked of the owner's pairing when the launch is read
// (`received`: work that came before it), else kept in a bit per id (a
// gap's launches have ids near each other: 8 KiB per 65,536 ids) until a
// work record of that id is told (worked()). Two launches of one id: the
// first to get work is the one paired, as in memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"
#include "tools/analysis/model/call_slots.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

class GapTally {
 public:
  // What the owner's pairing knows of a call's id: a work record paired
  // with it already (1), none yet (0), the call no longer known (-1).
  using Received = int (*)(void* owner, uint64_t correlation);
  GapTally(Received received, void* owner) : received_(received), owner_(owner) {}

  // A CuptiStatus as read: its gaps so far. False (why()) when a new gap
  // cannot be counted exactly.
  bool status(const pb::CuptiStatus& status);
  // Every GPU record counted in the file's GpuCounts (sync records too).
  void gpu(uint64_t start_ns) {
    ++gpu_records_;
    if (!gaps_.empty()) count_gpu(start_ns);
    remember_gpu(start_ns);
  }
  // A call of category kLaunch (correlation 0: it never pairs).
  void launch(uint64_t start_ns, uint64_t correlation) {
    if (!gaps_.empty()) add_launch(start_ns, correlation, received_(owner_, correlation) == 1);
    remember_launch(start_ns, correlation);
  }
  // A work record paired with the call of this id.
  void worked(uint64_t correlation) {
    // Most work is of calls made outside every gap: no lookup then.
    if (correlation < min_id_ || correlation > max_id_) return;
    for (Gap& gap : gaps_) {
      if (!gap.waiting.test(correlation)) continue;
      gap.waiting.reset(correlation);
      ++gap.worked;
      return;
    }
  }

  // After the file, with its last CuptiStatus: false (why()) when its gaps
  // were not counted exactly. Gaps still open last to the end.
  bool finish(const pb::CuptiStatus& last);
  // Then, once every worked() was told (a reader that pairs after reading
  // tells them after finish()): one GapCounts per gap.
  std::vector<GapCounts> counts() const;
  const std::string& why() const { return why_; }

 private:
  static constexpr size_t kRing = size_t{1} << 16;
  static constexpr size_t kMaxPending = size_t{1} << 22;
  // A launch counted in a gap whose end was not known yet.
  struct Candidate {
    uint64_t start_ns;
    uint64_t correlation;
    bool received;
  };
  struct Gap {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;            // 0: not known to have ended
    GapCounts counts;               // launches_without_gpu: counts.launches - worked, at the end
    uint64_t worked = 0;            // launches in it that a work record paired with
    PagedBits waiting;              // ids of its launches no work record paired with yet
    std::vector<uint64_t> pending;  // GPU starts at or after start_ns, before the end was known
    // Its last kRing launches while its end was not known, and the latest
    // start of those pushed out of the ring.
    std::vector<Candidate> recent;
    uint64_t recent_count = 0;
    uint64_t evicted_start = 0;
  };
  struct RingLaunch {
    uint64_t start_ns;
    uint64_t correlation;
  };
  void count_gpu(uint64_t start_ns);
  void add_launch(uint64_t start_ns, uint64_t correlation, bool received);
  void remember_gpu(uint64_t start_ns) {
    uint64_t& slot = gpu_ring_[gpu_records_ % kRing];
    if (gpu_records_ > kRing) evicted_gpu_ = std::max(evicted_gpu_, slot);
    slot = start_ns;
  }
  void remember_launch(uint64_t start_ns, uint64_t correlation) {
    RingLaunch& slot = launch_ring_[launches_ % kRing];
    if (launches_ >= kRing) evicted_launch_ = std::max(evicted_launch_, slot.start_ns);
    slot = RingLaunch{start_ns, correlation};
    ++launches_;
  }
  bool open_gap(uint64_t start_ns);
  void close_gap(Gap& gap, uint64_t end_ns);
  void fail(const char* why) {
    if (why_.empty()) why_ = why;
  }

  Received received_;
  void* owner_;
  std::vector<Gap> gaps_;
  uint64_t min_id_ = UINT64_MAX, max_id_ = 0;  // of the gaps' waiting launches
  // The last kRing GPU starts (slot: count % kRing, written after counting)
  // and launches, and the latest start of any pushed out of them.
  std::vector<uint64_t> gpu_ring_ = std::vector<uint64_t>(kRing);
  std::vector<RingLaunch> launch_ring_ = std::vector<RingLaunch>(kRing);
  uint64_t gpu_records_ = 0, launches_ = 0;
  uint64_t evicted_gpu_ = 0, evicted_launch_ = 0;
  size_t pending_ = 0;
  std::string why_;
};

}  // namespace gprof::analysis
