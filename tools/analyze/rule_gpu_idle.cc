// gpu-idle: the GPU idle for a large share of the window in gaps long enough
// to matter, with what the CPU was doing meanwhile: the innermost range open
// during most of each gap and the API calls it was in (nsys analyze's
// gpu_gaps and gpu_time_util rules; HTA's idle time).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/analyze/rule.h"
#include "tools/analyze/rule_support.h"
#include "tools/analyze/rules.h"
#include "tools/analyze/where_builder.h"

namespace gprof::analyze {
namespace {

constexpr std::string_view kId = "gpu-idle";
constexpr ThresholdSpec kThresholds[] = {
    {"min_gap", 1e6, ThresholdUnit::kTime, "idle time counts in gaps of at least this length"},
    {"min_share", 0.3, ThresholdUnit::kShare,
     "fires when such gaps add up to this share of the window"},
};
constexpr size_t kListedGaps = 3;

struct FoundGap {
  const Timeline* timeline;
  uint32_t device;
  uint64_t start_ns, end_ns;
  int32_t range = kNone;
  std::vector<std::pair<uint64_t, std::string_view>> calls;  // (overlap, API name)
  uint64_t length() const { return end_ns - start_ns; }
};

uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  const uint64_t begin = std::max(a0, b0), end = std::min(a1, b1);
  return end > begin ? end - begin : 0;
}

// The idle gaps of one device: the complement of its work within each of
// the timeline's windows (without --range: from its first work to its last).
void device_gaps(const Timeline& timeline, uint32_t device, uint64_t min_gap,
                 std::vector<FoundGap>& gaps, uint64_t& window_ns) {
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (const Work& w : timeline.work)
    if (w.device == device && timeline.in_scope(w)) busy.emplace_back(w.start_ns, w.end_ns);
  if (busy.empty()) return;
  std::sort(busy.begin(), busy.end());
  std::vector<std::pair<uint64_t, uint64_t>> windows = timeline.windows;
  if (windows.size() == 1) {
    uint64_t last = 0;
    for (const auto& [s, e] : busy) last = std::max(last, e);
    windows = {{std::max(windows[0].first, busy.front().first), std::min(windows[0].second, last)}};
  }
  for (const auto& [begin, end] : windows) {
    if (end <= begin) continue;
    window_ns += end - begin;
    uint64_t cursor = begin;
    for (const auto& [s, e] : busy) {
      if (e <= cursor) continue;
      if (s >= end) break;
      if (s > cursor && s - cursor >= min_gap)
        gaps.push_back(FoundGap{&timeline, device, cursor, s, kNone, {}});
      cursor = std::max(cursor, e);
      if (cursor >= end) break;
    }
    if (cursor < end && end - cursor >= min_gap)
      gaps.push_back(FoundGap{&timeline, device, cursor, end, kNone, {}});
  }
}

// For each gap of one timeline (by start): the innermost range open during
// most of it and the calls open during it, swept over ranges and calls by
// start time.
void explain(const Timeline& timeline, std::vector<FoundGap*>& gaps) {
  std::sort(gaps.begin(), gaps.end(),
            [](const FoundGap* a, const FoundGap* b) { return a->start_ns < b->start_ns; });
  std::vector<uint32_t> ranges(timeline.ranges.size()), calls(timeline.calls.size());
  for (uint32_t i = 0; i < ranges.size(); ++i) ranges[i] = i;
  for (uint32_t i = 0; i < calls.size(); ++i) calls[i] = i;
  std::sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
    return timeline.ranges[a].start_ns < timeline.ranges[b].start_ns;
  });
  std::sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
    return timeline.calls[a].start_ns < timeline.calls[b].start_ns;
  });
  std::vector<uint32_t> open_ranges, open_calls;
  size_t next_range = 0, next_call = 0;
  for (FoundGap* gap : gaps) {
    while (next_range < ranges.size() && timeline.ranges[ranges[next_range]].start_ns < gap->end_ns)
      open_ranges.push_back(ranges[next_range++]);
    while (next_call < calls.size() && timeline.calls[calls[next_call]].start_ns < gap->end_ns)
      open_calls.push_back(calls[next_call++]);
    std::erase_if(open_ranges,
                  [&](uint32_t r) { return timeline.ranges[r].end_ns <= gap->start_ns; });
    std::erase_if(open_calls,
                  [&](uint32_t c) { return timeline.calls[c].end_ns <= gap->start_ns; });
    // The innermost (shortest) range open during at least half of the gap; a
    // gap that ends with the launch after "data_loader" closed belongs to it,
    // not to the step around both. Else the range open during most of it.
    uint64_t best = 0;
    bool covers_half = false;
    for (uint32_t r : open_ranges) {
      const Span& span = timeline.ranges[r];
      const uint64_t o = overlap(span.start_ns, span.end_ns, gap->start_ns, gap->end_ns);
      const bool half = 2 * o >= gap->length();
      const bool better =
          half ? !covers_half || span.duration() < timeline.ranges[gap->range].duration()
               : !covers_half && o > best;
      if (o > 0 && better) {
        best = o;
        covers_half = half;
        gap->range = static_cast<int32_t>(r);
      }
    }
    std::map<std::string_view, uint64_t> by_api;
    for (uint32_t c : open_calls) {
      const Call& call = timeline.calls[c];
      if (call.api == ApiId::kUnknown) continue;
      by_api[api_name(call.api)] += overlap(call.start_ns, call.end_ns, gap->start_ns, gap->end_ns);
    }
    for (const auto& [name, ns] : by_api)
      if (ns > 0) gap->calls.emplace_back(ns, name);
    std::stable_sort(gap->calls.begin(), gap->calls.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
  }
}

std::optional<Finding> run(const RuleContext& context) {
  const uint64_t min_gap = static_cast<uint64_t>(context.get(kId, "min_gap"));
  std::vector<FoundGap> gaps;
  uint64_t window_ns = 0;
  for (const Timeline& timeline : context.files) {
    std::vector<uint32_t> devices;
    for (const Work& w : timeline.work)
      if (std::find(devices.begin(), devices.end(), w.device) == devices.end())
        devices.push_back(w.device);
    std::sort(devices.begin(), devices.end());
    const size_t first = gaps.size();
    for (uint32_t device : devices)
      device_gaps(timeline, device, std::max<uint64_t>(min_gap, 1), gaps, window_ns);
    std::vector<FoundGap*> own;
    for (size_t i = first; i < gaps.size(); ++i) own.push_back(&gaps[i]);
    explain(timeline, own);
  }
  uint64_t idle_ns = 0;
  for (const FoundGap& gap : gaps) idle_ns += gap.length();
  if (gaps.empty() || window_ns == 0) return std::nullopt;
  const double idle_share = static_cast<double>(idle_ns) / static_cast<double>(window_ns);
  if (idle_share < context.get(kId, "min_share")) return std::nullopt;

  WhereBuilder where;
  std::map<std::string_view, uint64_t> by_api;
  for (const FoundGap& gap : gaps) {
    where.add_time(*gap.timeline, gap.range, gap.start_ns, gap.device, gap.length());
    for (const auto& [ns, name] : gap.calls) by_api[name] += ns;
  }
  // Per step: the idle share of each step, from the gaps inside it (a
  // file's gaps by start; a step looks from the first that may reach it).
  std::vector<uint64_t> step_shares;  // in ppm, for the median
  for (const Timeline& timeline : context.files) {
    std::vector<const FoundGap*> own;
    uint64_t longest_gap = 0;
    for (const FoundGap& gap : gaps)
      if (gap.timeline == &timeline) {
        own.push_back(&gap);
        longest_gap = std::max(longest_gap, gap.length());
      }
    std::sort(own.begin(), own.end(),
              [](const FoundGap* a, const FoundGap* b) { return a->start_ns < b->start_ns; });
    for (const Step& step : timeline.steps) {
      const uint64_t from = step.start_ns - std::min(step.start_ns, longest_gap);
      auto it = std::lower_bound(own.begin(), own.end(), from,
                                 [](const FoundGap* g, uint64_t t) { return g->start_ns < t; });
      uint64_t idle = 0;
      for (; it != own.end() && (*it)->start_ns < step.end_ns; ++it)
        idle += overlap((*it)->start_ns, (*it)->end_ns, step.start_ns, step.end_ns);
      const uint64_t length = step.end_ns - step.start_ns;
      if (length > 0) step_shares.push_back(idle * 1000000 / length);
    }
  }
  std::vector<const FoundGap*> longest;
  for (const FoundGap& gap : gaps) longest.push_back(&gap);
  std::stable_sort(longest.begin(), longest.end(),
                   [](const FoundGap* a, const FoundGap* b) { return a->length() > b->length(); });
  if (longest.size() > kListedGaps) longest.resize(kListedGaps);

  Finding f;
  f.rule = kId;
  set_impact(f, idle_ns, window_ns);
  f.evidence = {
      time_metric("idle_time", "GPU idle time", idle_ns),
      share_metric("idle_share", "share of the window", idle_share),
      count_metric("gaps", fmt::format("gaps of {} or more", time_text(min_gap)), gaps.size()),
      time_metric("longest_gap", "longest gap", longest.front()->length()),
      time_metric("window", "window (GPU's first to last work)", window_ns)};
  if (!step_shares.empty())
    f.evidence.push_back(share_metric("median_step_idle_share", "median idle share of a step",
                                      median(step_shares) / 1e6));
  std::vector<std::pair<std::string_view, uint64_t>> apis(by_api.begin(), by_api.end());
  std::stable_sort(apis.begin(), apis.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < apis.size() && i < 3; ++i)
    f.evidence.push_back(time_metric(fmt::format("cpu_in.{}", apis[i].first),
                                     fmt::format("CPU in {} meanwhile", apis[i].first),
                                     apis[i].second));
  for (const FoundGap* gap : longest) {
    Gap g;
    g.file = file_label(*gap->timeline);
    g.device = gap->device;
    const uint64_t origin =
        gap->timeline->windows.empty() ? 0 : gap->timeline->windows.front().first;
    g.offset_ns = gap->start_ns - std::min(origin, gap->start_ns);
    g.length_ns = gap->length();
    if (gap->range != kNone) g.range = gap->timeline->ranges[gap->range].name;
    for (size_t i = 0; i < gap->calls.size() && i < 2; ++i)
      g.calls.push_back(
          fmt::format("{} ({})", gap->calls[i].second, time_text(gap->calls[i].first)));
    f.gaps.push_back(std::move(g));
  }
  f.where = where.finish(context.files);
  const Gap& top = f.gaps.front();
  f.summary = fmt::format(
      "The GPU was idle {} ({} of the window) in {} of {} or more; the longest, {}, while the "
      "CPU was in {}{}.",
      time_text(idle_ns), share_text(idle_share), count_text(gaps.size(), "gap", "gaps"),
      time_text(min_gap), time_text(top.length_ns),
      top.range.empty() ? "no range" : "'" + top.range + "'",
      top.calls.empty() ? ", in no CUDA call" : " and " + top.calls.front());
  f.suggestion =
      "Keep the GPU fed while the CPU works: overlap input preparation with GPU work "
      "(PyTorch: DataLoader(num_workers>0, pin_memory=True), prefetching to the GPU on a side "
      "stream), move CPU-side preprocessing to the GPU, or queue the next step's kernels "
      "before host work that does not depend on them.";
  return f;
}

}  // namespace

const RuleSpec kGpuIdleRule{
    kId, "the GPU idle for a large share of the window, with what the CPU did meanwhile",
    kThresholds, run};

}  // namespace gprof::analyze
