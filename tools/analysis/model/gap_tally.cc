#include "tools/analysis/model/gap_tally.h"

#include <algorithm>

namespace gprof::analysis {

bool GapTally::status(const pb::CuptiStatus& status) {
  for (int i = 0; i < status.gaps_size(); ++i) {
    const pb::CuptiGap& listed = status.gaps(i);
    if (static_cast<size_t>(i) == gaps_.size() && !open_gap(listed.start_ns())) return false;
    Gap& gap = gaps_[static_cast<size_t>(i)];
    if (gap.start_ns != listed.start_ns()) {
      fail("a CUPTI gap whose start changed");
      return false;
    }
    if (gap.end_ns == 0 && listed.end_ns() != 0) close_gap(gap, listed.end_ns());
  }
  return why_.empty();
}

// The records and launches read before the gap was: those that started
// before it are in its counts already as records read before it; the
// others wait in it.
bool GapTally::open_gap(uint64_t start_ns) {
  const uint64_t kept_gpu = std::min<uint64_t>(gpu_records_, kRing);
  const uint64_t kept_launches = std::min<uint64_t>(launches_, kRing);
  if ((gpu_records_ > kRing && evicted_gpu_ >= start_ns) ||
      (launches_ > kRing && evicted_launch_ >= start_ns)) {
    fail("records read long before a CUPTI gap that started before them");
    return false;
  }
  Gap& gap = gaps_.emplace_back();
  gap.start_ns = start_ns;
  gap.counts.gpu_before = gpu_records_ - kept_gpu;
  for (uint64_t n = gpu_records_ - kept_gpu; n < gpu_records_; ++n) {
    const uint64_t start = gpu_ring_[(n + 1) % kRing];
    if (start < start_ns)
      ++gap.counts.gpu_before;
    else
      gap.pending.push_back(start);
  }
  pending_ += gap.pending.size();
  for (uint64_t n = launches_ - kept_launches; n < launches_; ++n) {
    const RingLaunch& l = launch_ring_[n % kRing];
    if (l.start_ns < start_ns) continue;
    const int received = received_(owner_, l.correlation);
    if (received < 0) {
      fail("a launch inside a CUPTI gap whose call left the pairing window");
      return false;
    }
    add_launch(l.start_ns, l.correlation, received == 1);
  }
  return why_.empty();
}

void GapTally::close_gap(Gap& gap, uint64_t end_ns) {
  gap.end_ns = end_ns;
  for (uint64_t start : gap.pending)
    ++(start < end_ns ? gap.counts.gpu_during : gap.counts.gpu_after);
  pending_ -= gap.pending.size();
  gap.pending = {};
  // The launches counted in it that started after its end: taken back.
  if (gap.recent_count > kRing && gap.evicted_start >= end_ns) {
    fail("launches read long before the end of a CUPTI gap that ended before them");
    return;
  }
  for (const Candidate& c : gap.recent) {
    if (c.start_ns < end_ns) continue;
    --gap.counts.launches;
    if (c.received)
      --gap.worked;
    else if (c.correlation != 0 && gap.waiting.test(c.correlation))
      gap.waiting.reset(c.correlation);
    else if (c.correlation != 0)
      --gap.worked;  // its work came since
  }
  gap.recent = {};
}

void GapTally::count_gpu(uint64_t start_ns) {
  for (Gap& gap : gaps_) {
    if (start_ns < gap.start_ns)
      ++gap.counts.gpu_before;
    else if (gap.end_ns != 0)
      ++(start_ns < gap.end_ns ? gap.counts.gpu_during : gap.counts.gpu_after);
    else if (pending_++ < kMaxPending)
      gap.pending.push_back(start_ns);
    else
      fail("too many GPU records inside a CUPTI gap");
  }
}

void GapTally::add_launch(uint64_t start_ns, uint64_t correlation, bool received) {
  auto gap = std::find_if(gaps_.begin(), gaps_.end(), [&](const Gap& g) {
    return start_ns >= g.start_ns && (g.end_ns == 0 || start_ns < g.end_ns);
  });
  if (gap == gaps_.end()) return;
  ++gap->counts.launches;
  if (received) {
    ++gap->worked;
  } else if (correlation != 0) {
    gap->waiting.set(correlation);
    min_id_ = std::min(min_id_, correlation);
    max_id_ = std::max(max_id_, correlation);
  }
  if (gap->end_ns != 0) return;
  const Candidate c{start_ns, correlation, received};
  if (gap->recent.size() < kRing) {
    gap->recent.push_back(c);
  } else {
    Candidate& slot = gap->recent[gap->recent_count % kRing];
    gap->evicted_start = std::max(gap->evicted_start, slot.start_ns);
    slot = c;
  }
  ++gap->recent_count;
}

bool GapTally::finish(const pb::CuptiStatus& last) {
  if (!status(last)) return false;
  if (gaps_.size() != static_cast<size_t>(last.gaps_size())) {
    fail("a CUPTI gap no longer listed");
    return false;
  }
  for (Gap& gap : gaps_)
    if (gap.end_ns == 0) close_gap(gap, UINT64_MAX);
  return why_.empty();
}

std::vector<GapCounts> GapTally::counts() const {
  std::vector<GapCounts> out;
  for (const Gap& gap : gaps_) {
    GapCounts c = gap.counts;
    c.launches_without_gpu = c.launches - gap.worked;
    out.push_back(c);
  }
  return out;
}

}  // namespace gprof::analysis
