// gpu-idle: the GPU idle for a large share of the window in gaps long enough
// to matter, with what the CPU was doing meanwhile: the innermost range open
// during most of each gap and the API calls it was in (nsys analyze's
// gpu_gaps and gpu_time_util rules; HTA's idle time).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"
#include "tools/findings/rules/where_builder.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = GpuIdleTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_gap", 1e6, ThresholdUnit::kTime, "idle time counts in gaps of at least this length"},
    {"min_share", 0.3, ThresholdUnit::kShare,
     "fires when such gaps add up to this share of the window"},
    {"startup_share", 0.01, ThresholdUnit::kShare,
     "without steps or --range: gaps that begin before a device has run this share of its "
     "kernels are start-up, left out of the window (0: none)"},
    {"warmup_gap", 50e6, ThresholdUnit::kTime,
     "without --range: gaps up to this long that end where a kernel first ran on its device "
     "(module loading, first calls), mostly outside data loading, are warm-up, left out of the "
     "idle time and the window (0: none)"},
};
constexpr size_t kListedGaps = 3;

struct Busy {
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t name;  // Work::name
  bool kernel;
};

// One device's work in scope in an in-memory timeline, by (start, end).
std::vector<Busy> device_busy(const Timeline& timeline, uint32_t device) {
  std::vector<Busy> busy;
  for (const Work& w : timeline.work)
    if (w.device == device && timeline.in_scope(w))
      busy.push_back(Busy{w.start_ns, w.end_ns, w.name, w.kind == GpuKind::kKernel});
  std::sort(busy.begin(), busy.end(), [](const Busy& a, const Busy& b) {
    return std::tie(a.start_ns, a.end_ns) < std::tie(b.start_ns, b.end_ns);
  });
  return busy;
}

// Where the start-up of a device with `busy` ends (StartupFinder); 0: none.
uint64_t startup_end(const Timeline& timeline, const std::vector<Busy>& busy,
                     const GpuIdleTally& tally) {
  if (!has_startup(timeline)) return 0;
  const auto kernels =
      std::count_if(busy.begin(), busy.end(), [](const Busy& b) { return b.kernel; });
  StartupFinder startup = tally.startup_finder(static_cast<uint64_t>(kernels));
  for (const Busy& b : busy) startup.add(b.start_ns, b.end_ns, b.kernel);
  return startup.end_ns();
}

std::vector<uint32_t> devices_of(const Timeline& timeline) {
  std::vector<uint32_t> devices;
  for (const Work& w : timeline.work)
    if (std::find(devices.begin(), devices.end(), w.device) == devices.end())
      devices.push_back(w.device);
  std::sort(devices.begin(), devices.end());
  return devices;
}

// The idle gaps of one device of an in-memory timeline, by time: the
// complement of its work within each of the timeline's windows (without
// --range: from its first work to its last).
std::vector<ExplainedGap> device_gaps(const Timeline& timeline, uint32_t device,
                                      GpuIdleTally& tally, uint32_t& busy_devices) {
  const std::vector<Busy> busy = device_busy(timeline, device);
  std::vector<ExplainedGap> gaps;
  if (busy.empty()) return gaps;
  ++busy_devices;
  uint64_t last = 0;
  for (const Busy& b : busy) last = std::max(last, b.end_ns);
  const uint64_t min_gap = std::max<uint64_t>(tally.min_gap(), 1);
  const uint64_t startup = startup_end(timeline, busy, tally);
  FirstRuns first_runs;
  if (tally.finds_warmup(timeline))
    for (const Busy& b : busy) first_runs.add(b.start_ns, timeline.names[b.name], b.kernel);
  uint64_t warmup_idle = 0;
  GapFinder finder(device_windows(timeline, busy.front().start_ns, last, startup), min_gap,
                   [&](uint64_t start, uint64_t end) {
                     if (!tally.take_warmup(timeline, first_runs, start, end, warmup_idle))
                       gaps.push_back(ExplainedGap{start, end, nullptr, 0, {}});
                   });
  uint64_t setup_idle = 0;
  std::optional<GapFinder> setup;
  if (const auto window = setup_window(timeline, busy.front().start_ns, last, startup))
    setup.emplace(std::vector{*window}, min_gap,
                  [&](uint64_t start, uint64_t end) { setup_idle += end - start; });
  for (const Busy& b : busy) {
    finder.add(b.start_ns, b.end_ns);
    if (setup) setup->add(b.start_ns, b.end_ns);
  }
  finder.finish();
  tally.add_window(finder.window_ns() - warmup_idle);
  if (setup) {
    setup->finish();
    tally.add_setup(timeline, setup->window_ns(), setup_idle);
  }
  return gaps;
}

// For each gap of one timeline: what the CPU did meanwhile, swept over
// ranges and calls by start time.
void explain(const Timeline& timeline, std::vector<ExplainedGap*> gaps) {
  std::stable_sort(gaps.begin(), gaps.end(), [](const ExplainedGap* a, const ExplainedGap* b) {
    return a->start_ns < b->start_ns;
  });
  std::vector<uint32_t> ranges(timeline.ranges.size()), calls(timeline.calls.size());
  for (uint32_t i = 0; i < ranges.size(); ++i) ranges[i] = i;
  for (uint32_t i = 0; i < calls.size(); ++i) calls[i] = i;
  std::stable_sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
    return timeline.ranges[a].start_ns < timeline.ranges[b].start_ns;
  });
  std::stable_sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
    return timeline.calls[a].start_ns < timeline.calls[b].start_ns;
  });
  GapExplainer explainer;
  size_t next_range = 0, next_call = 0;
  for (ExplainedGap* gap : gaps) {
    for (; next_range < ranges.size() && timeline.ranges[ranges[next_range]].start_ns < gap->end_ns;
         ++next_range) {
      const Span& span = timeline.ranges[ranges[next_range]];
      explainer.add_range({span.start_ns, span.end_ns, &span.name, span.tid}, gap->start_ns);
    }
    for (; next_call < calls.size() && timeline.calls[calls[next_call]].start_ns < gap->end_ns;
         ++next_call) {
      const Call& call = timeline.calls[calls[next_call]];
      explainer.add_call({call.start_ns, call.end_ns, call.api}, gap->start_ns);
    }
    explainer.explain(*gap);
  }
}

std::optional<Finding> run(const RuleContext& context) {
  GpuIdleTally tally(context.thresholds);
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, GpuIdleTally& tally) {
  uint32_t busy_devices = 0;  // with work in scope
  const std::vector<uint32_t> devices = devices_of(timeline);
  std::vector<std::pair<uint32_t, std::vector<ExplainedGap>>> by_device;
  std::vector<ExplainedGap*> all;
  for (uint32_t device : devices) {
    by_device.emplace_back(device, device_gaps(timeline, device, tally, busy_devices));
    for (ExplainedGap& gap : by_device.back().second) all.push_back(&gap);
  }
  explain(timeline, all);
  std::vector<uint64_t> idle(timeline.steps.size(), 0);
  for (const auto& [device, gaps] : by_device)
    for (const ExplainedGap& gap : gaps) {
      tally.add_gap(timeline, device, gap, tally.next_order());
      add_to_steps(timeline.steps, gap.start_ns, gap.end_ns, idle);
    }
  add_step_shares(timeline.steps, idle, busy_devices, tally);
}

bool has_startup(const Timeline& timeline) {
  return !timeline.ranged && timeline.windows.size() == 1 && timeline.steps.empty();
}

// Where the GPU's own window starts: the first step's start, else the end
// of the device's start-up (0: none).
static uint64_t setup_end(const Timeline& timeline, uint64_t startup_end_ns) {
  if (timeline.ranged) return 0;  // the user's window: nothing is setup
  return timeline.steps.empty() ? startup_end_ns : timeline.steps.front().start_ns;
}

std::vector<std::pair<uint64_t, uint64_t>> device_windows(const Timeline& timeline,
                                                          uint64_t first_start_ns,
                                                          uint64_t last_end_ns,
                                                          uint64_t startup_end_ns) {
  if (timeline.windows.size() != 1) return timeline.windows;
  const uint64_t start =
      std::max({timeline.windows[0].first, first_start_ns, setup_end(timeline, startup_end_ns)});
  const uint64_t end = std::min(timeline.windows[0].second, last_end_ns);
  if (start >= end) return {};
  return {{start, end}};
}

std::optional<std::pair<uint64_t, uint64_t>> setup_window(const Timeline& timeline,
                                                          uint64_t first_start_ns,
                                                          uint64_t last_end_ns,
                                                          uint64_t startup_end_ns) {
  const uint64_t until = setup_end(timeline, startup_end_ns);
  if (timeline.windows.size() != 1 || until == 0) return std::nullopt;
  const uint64_t start = std::max(timeline.windows[0].first, first_start_ns);
  const uint64_t end = std::min({timeline.windows[0].second, last_end_ns, until});
  if (start >= end) return std::nullopt;
  return std::pair{start, end};
}

uint64_t file_setup_end(const Timeline& timeline, const std::vector<uint64_t>& startup_ends) {
  if (timeline.ranged || timeline.windows.empty()) return 0;
  // Calls before the window (a first cudaMalloc that ran cuInit, a sync
  // with nothing to wait for) are no rule's either.
  const uint64_t window_start = timeline.windows.front().first;
  if (!timeline.steps.empty()) return std::max(window_start, timeline.steps.front().start_ns);
  if (startup_ends.empty() ||
      std::find(startup_ends.begin(), startup_ends.end(), 0) != startup_ends.end())
    return window_start;
  return std::max(window_start, *std::min_element(startup_ends.begin(), startup_ends.end()));
}

void find_setup(Timeline& timeline, const Thresholds& thresholds) {
  const GpuIdleTally tally(thresholds);
  std::vector<uint64_t> startup_ends;
  for (const uint32_t device : devices_of(timeline)) {
    const std::vector<Busy> busy = device_busy(timeline, device);
    if (!busy.empty()) startup_ends.push_back(startup_end(timeline, busy, tally));
  }
  timeline.setup_end_ns = file_setup_end(timeline, startup_ends);
  timeline.setup_found = true;
}

void add_to_steps(const std::vector<Step>& steps, uint64_t start_ns, uint64_t end_ns,
                  std::vector<uint64_t>& ns) {
  // Steps do not overlap (find_steps), so their ends rise with their starts.
  auto it = std::upper_bound(steps.begin(), steps.end(), start_ns,
                             [](uint64_t t, const Step& s) { return t < s.end_ns; });
  for (; it != steps.end() && it->start_ns < end_ns; ++it)
    ns[it - steps.begin()] += overlap(start_ns, end_ns, it->start_ns, it->end_ns);
}

void add_step_shares(const std::vector<Step>& steps, const std::vector<uint64_t>& idle,
                     uint32_t devices, GpuIdleTally& tally) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const uint64_t length = (steps[i].end_ns - steps[i].start_ns) * devices;
    if (length > 0) tally.add_step(idle[i], length);
  }
}

GpuIdleTally::GpuIdleTally(const Thresholds& thresholds)
    : min_gap_(static_cast<uint64_t>(thresholds.get(kId, "min_gap"))),
      startup_share_(thresholds.get(kId, "startup_share")),
      warmup_gap_(static_cast<uint64_t>(thresholds.get(kId, "warmup_gap"))) {}

bool GpuIdleTally::take_warmup(const Timeline& timeline, const FirstRuns& first_runs,
                               uint64_t start_ns, uint64_t end_ns, uint64_t& device_warmup_ns) {
  if (!finds_warmup(timeline) || end_ns - start_ns > warmup_gap_ || !first_runs.at(end_ns))
    return false;
  // data_loading is sorted and joined: from the first that ends after the gap starts.
  const auto& loading = timeline.data_loading;
  uint64_t loading_ns = 0;
  for (auto it = std::upper_bound(loading.begin(), loading.end(), start_ns,
                                  [](uint64_t t, const auto&l) { return t < l.second; });
       it != loading.end() && it->first < end_ns; ++it)
    loading_ns += overlap(it->first, it->second, start_ns, end_ns);
  if (2 * loading_ns >= end_ns - start_ns) return false;
  ++warmup_gaps_;
  warmup_idle_ns_ += end_ns - start_ns;
  device_warmup_ns += end_ns - start_ns;
  return true;
}

void GpuIdleTally::add_gap(const Timeline& timeline, uint32_t device, const ExplainedGap& gap,
                           uint64_t order) {
  ++gaps_;
  idle_ns_ += gap.length();
  where_.add_time(timeline, gap.range, gap.range_tid, gap.start_ns, device, gap.length());
  for (const auto& [ns, name] : gap.calls) by_api_[name] += ns;
  // The longest few, as a stable sort by length of all gaps would list them.
  const auto after = [&](const Listed& l) {
    return l.gap.length_ns > gap.length() || (l.gap.length_ns == gap.length() && l.order < order);
  };
  const auto at = std::find_if_not(longest_.begin(), longest_.end(), after);
  if (at == longest_.end() && longest_.size() >= kListedGaps) return;
  Gap g;
  g.file = file_label(timeline);
  g.device = device;
  const uint64_t origin = timeline.windows.empty() ? 0 : timeline.windows.front().first;
  g.offset_ns = gap.start_ns - std::min(origin, gap.start_ns);
  g.length_ns = gap.length();
  if (gap.range != nullptr) g.range = *gap.range;
  for (size_t i = 0; i < gap.calls.size() && i < 2; ++i)
    g.calls.push_back(fmt::format("{} ({})", gap.calls[i].second, time_text(gap.calls[i].first)));
  longest_.insert(at, Listed{std::move(g), order});
  if (longest_.size() > kListedGaps) longest_.pop_back();
}

std::string GpuIdleTally::window_label() const {
  const bool setup = setup_window_ns_ > 0, warmup = warmup_gaps_ > 0;
  if (!setup && !warmup) return "window (GPU's first to last work)";
  return fmt::format("window (GPU's first to last work, less {})", setup && warmup
                                                                       ? "setup and warm-up"
                                                                   : setup ? "setup"
                                                                           : "warm-up");
}

std::optional<Finding> GpuIdleTally::finish(const RuleContext& context) {
  const uint64_t min_gap = min_gap_, idle_ns = idle_ns_, window_ns = window_ns_;
  if (gaps_ == 0 || window_ns == 0) return std::nullopt;
  const double idle_share = static_cast<double>(idle_ns) / static_cast<double>(window_ns);
  const double min_share = context.get(kId, "min_share");
  const double step_share = step_shares_.size() > 0 ? step_shares_.median() / 1e6 : 0;
  // The steps judged on their own when the window is not idle enough: time
  // outside them (an evaluation, checkpoints, the end of the run) can keep
  // the GPU busy and hide steps that idle most of the time (issue 32 item 1).
  const bool in_steps = idle_share < min_share;
  if (in_steps && (step_shares_.size() == 0 || step_share < min_share)) return std::nullopt;
  Finding f;
  f.rule = kId;
  set_impact(f, in_steps ? step_idle_ns_ : idle_ns, window_ns);
  f.evidence = {time_metric("idle_time", "GPU idle time", idle_ns),
                share_metric("idle_share", "share of the window", idle_share),
                count_metric("gaps", fmt::format("gaps of {} or more", time_text(min_gap)), gaps_),
                time_metric("longest_gap", "longest gap", longest_.front().gap.length_ns),
                time_metric("window", window_label(), window_ns)};
  if (step_shares_.size() > 0)
    f.evidence.push_back(
        share_metric("median_step_idle_share", "median idle share of a step", step_share));
  if (in_steps)
    f.evidence.push_back(
        time_metric("step_idle_time", "GPU idle time inside steps", step_idle_ns_));
  if (setup_window_ns_ > 0) {
    // Before the first step, or before the device's work began in earnest.
    const bool steps = step_setups_ > 0, startup = startup_setups_ > 0;
    const char* setup = !startup ? "before the first step (setup, not counted)"
                        : !steps ? "start-up (setup, not counted)"
                                 : "before the first step or start-up (setup, not counted)";
    const char* idle = !startup ? "GPU idle before the first step"
                       : !steps ? "GPU idle in start-up"
                                : "GPU idle before the first step or in start-up";
    f.evidence.push_back(time_metric("setup", setup, setup_window_ns_));
    f.evidence.push_back(time_metric("setup_idle", idle, setup_idle_ns_));
  }
  if (warmup_gaps_ > 0) {
    f.evidence.push_back(time_metric("warmup_idle",
                                     "GPU idle before kernels' first runs (warm-up, not counted)",
                                     warmup_idle_ns_));
    f.evidence.push_back(count_metric("warmup_gaps", "warm-up gaps", warmup_gaps_));
  }
  std::vector<std::pair<std::string_view, uint64_t>> apis(by_api_.begin(), by_api_.end());
  std::stable_sort(apis.begin(), apis.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < apis.size() && i < 3; ++i)
    f.evidence.push_back(time_metric(fmt::format("cpu_in.{}", apis[i].first),
                                     fmt::format("CPU in {} meanwhile", apis[i].first),
                                     apis[i].second));
  for (Listed& listed : longest_) f.gaps.push_back(std::move(listed.gap));
  f.where = where_.finish(context.files);
  const Gap& top = f.gaps.front();
  const std::string longest =
      fmt::format("{}, while the CPU was in {}{}", time_text(top.length_ns),
                  top.range.empty() ? "no range" : "'" + top.range + "'",
                  top.calls.empty() ? ", in no CUDA call" : " and " + top.calls.front());
  if (in_steps)
    f.summary = fmt::format(
        "In the median step the GPU was idle {} of the time, in gaps of {} or more ({} in all "
        "the steps), though over the whole window it was idle only {}: the time outside the "
        "steps kept it busier. The longest gap, {}.",
        share_text(step_share), time_text(min_gap), time_text(step_idle_ns_),
        share_text(idle_share), longest);
  else
    f.summary =
        fmt::format("The GPU was idle {} ({} of the window) in {} of {} or more; the longest, {}.",
                    time_text(idle_ns), share_text(idle_share), count_text(gaps_, "gap", "gaps"),
                    time_text(min_gap), longest);
  f.suggestion =
      "Keep the GPU fed while the CPU works: overlap input preparation with GPU work "
      "(PyTorch: DataLoader(num_workers>0, pin_memory=True), prefetching to the GPU on a side "
      "stream), move CPU-side preprocessing to the GPU, or queue the next step's kernels "
      "before host work that does not depend on them.";
  return f;
}

const RuleSpec kGpuIdleRule{
    kId, "the GPU idle for a large share of the window, with what the CPU did meanwhile",
    kThresholds, run};

}  // namespace gprof::findings
