#include "tools/findings/rules/gpu_gaps.h"

#include <algorithm>
#include <map>

#include "tools/findings/rules/rule_support.h"

namespace gprof::findings {

uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  const uint64_t begin = std::max(a0, b0), end = std::min(a1, b1);
  return end > begin ? end - begin : 0;
}

GapFinder::GapFinder(std::vector<std::pair<uint64_t, uint64_t>> windows, uint64_t min_gap,
                     Emit emit)
    : windows_(std::move(windows)), min_gap_(min_gap), emit_(std::move(emit)) {
  open_window();
}

// Each window is swept over the intervals from the first: those before the
// one at hand can only have moved the cursor past their end, without a gap
// (they start before the previous window ended), which latest_end_ stands for.
bool GapFinder::open_window() {
  while (window_ < windows_.size()) {
    const auto [begin, end] = windows_[window_];
    if (end <= begin) {
      ++window_;
      continue;
    }
    window_ns_ += end - begin;
    cursor_ = std::max(begin, latest_end_);
    if (latest_end_ > begin && cursor_ >= end) {  // covered by what came before
      ++window_;
      continue;
    }
    in_window_ = true;
    return true;
  }
  in_window_ = false;
  return false;
}

void GapFinder::close_window() {
  const uint64_t end = windows_[window_].second;
  if (cursor_ < end && end - cursor_ >= min_gap_) emit_(cursor_, end);
  ++window_;
  open_window();
}

void GapFinder::add(uint64_t start_ns, uint64_t end_ns) {
  while (in_window_) {
    const uint64_t end = windows_[window_].second;
    if (end_ns <= cursor_) break;
    if (start_ns >= end) {
      close_window();
      continue;
    }
    if (start_ns > cursor_ && start_ns - cursor_ >= min_gap_) emit_(cursor_, start_ns);
    cursor_ = std::max(cursor_, end_ns);
    if (cursor_ >= end) {
      ++window_;
      latest_end_ = std::max(latest_end_, end_ns);
      open_window();
      continue;  // the same interval may reach into the next window
    }
    break;
  }
  latest_end_ = std::max(latest_end_, end_ns);
}

void GapFinder::finish() {
  while (in_window_) close_window();
}

StartupFinder::StartupFinder(uint64_t kernels, double share, uint64_t min_gap)
    : limit_(static_cast<double>(kernels) * share),
      min_gap_(std::max<uint64_t>(min_gap, 1)),
      done_(!(limit_ > 0)) {}

void StartupFinder::add(uint64_t start_ns, uint64_t end_ns, bool kernel) {
  if (done_) return;
  if (static_cast<double>(kernels_) >= limit_) {
    done_ = true;  // past it: the rest is the run
    return;
  }
  if (started_ && start_ns > covered_ && start_ns - covered_ >= min_gap_) end_ns_ = start_ns;
  covered_ = std::max(covered_, end_ns);
  kernels_ += kernel ? 1 : 0;
  started_ = true;
}

void GapExplainer::explain(ExplainedGap& gap) {
  std::erase_if(ranges_, [&](const Range& r) { return r.end_ns <= gap.start_ns; });
  std::erase_if(calls_, [&](const Call& c) { return c.end_ns <= gap.start_ns; });
  // The innermost (shortest) range open during at least half of the gap; a
  // gap that ends with the launch after "data_loader" closed belongs to it,
  // not to the step around both. Else the range open during most of it.
  uint64_t best = 0, best_length = 0;
  bool covers_half = false;
  gap.range = nullptr;
  for (const Range& range : ranges_) {
    const uint64_t o = overlap(range.start_ns, range.end_ns, gap.start_ns, gap.end_ns);
    const uint64_t length = range.end_ns - range.start_ns;
    const bool half = 2 * o >= gap.length();
    const bool better = half ? !covers_half || length < best_length : !covers_half && o > best;
    if (o > 0 && better) {
      best = o;
      best_length = length;
      covers_half = half;
      gap.range = range.name;
      gap.range_tid = range.tid;
    }
  }
  std::map<std::string_view, uint64_t> by_api;
  for (const Call& call : calls_) {
    if (call.api == ApiId::kUnknown) continue;
    by_api[api_name(call.api)] += overlap(call.start_ns, call.end_ns, gap.start_ns, gap.end_ns);
  }
  gap.calls.clear();
  for (const auto& [name, ns] : by_api)
    if (ns > 0) gap.calls.emplace_back(ns, name);
  std::stable_sort(gap.calls.begin(), gap.calls.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
}

}  // namespace gprof::findings
