// launch-bound: kernels that finish before the CPU launches the next one, so
// that the GPU idles between them and the launch rate, not the GPU, sets the
// pace (HTA's "kernel launch statistics": short kernels whose launch overhead
// exceeds their run time). Judged over the run, and when the run as a whole
// is not, per phase: the launches of one innermost range. A step mixes
// phases (a compute-bound forward, an optimizer of many small kernels), and
// 300 launches of 200 us kernels elsewhere kept a run's GPU busy above the
// threshold while 20,000 back-to-back launches of 0.5 us kernels in one range
// went unreported (issue 32 item 1).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"
#include "tools/findings/rules/where_builder.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = LaunchBoundTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_launches", 50, ThresholdUnit::kCount, "fires from this many kernel launches"},
    {"min_short_share", 0.5, ThresholdUnit::kShare,
     "when this share of them ran shorter than the time to the next launch"},
    {"max_gpu_busy", 0.5, ThresholdUnit::kShare,
     "and the GPU was busy less than this share of the time between them"},
    {"max_interval", 1e6, ThresholdUnit::kTime,
     "a launch followed by a longer pause is not launch overhead; gpu-idle reports it"},
};

std::optional<Finding> run(const RuleContext& context) {
  LaunchBoundTally tally(context.thresholds);
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, LaunchBoundTally& tally) {
  const std::vector<uint64_t> gpu_ns = gpu_ns_by_call(timeline);
  const std::vector<int32_t> first = first_work(timeline);
  std::map<uint32_t, std::vector<uint32_t>> by_thread;
  for (uint32_t i = 0; i < timeline.calls.size(); ++i) {
    const Call& call = timeline.calls[i];
    if (call.category == ApiCategory::kLaunch && call.work > 0 && timeline.counted(call))
      by_thread[call.tid].push_back(i);
  }
  for (auto& [tid, calls] : by_thread) {
    std::stable_sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
      return timeline.calls[a].start_ns < timeline.calls[b].start_ns;
    });
    for (uint32_t index : calls) {
      const Call& call = timeline.calls[index];
      tally.launch(timeline, call, place_of(timeline, call), gpu_ns[index],
                   first[index] == kNone ? nullptr : &timeline.work[first[index]]);
    }
    tally.end_thread();
  }
}

LaunchBoundTally::LaunchBoundTally(const Thresholds& thresholds)
    : max_interval_(static_cast<uint64_t>(thresholds.get(kId, "max_interval"))) {}

// A launch's interval is known when the next launch of its thread comes.
void LaunchBoundTally::launch(const Timeline& timeline, const Call& call, const CallPlace& place,
                              uint64_t gpu_ns, const Work* first) {
  ++launches_;
  kernel_ns_.add(gpu_ns);
  Phase& here = phase(place.range);
  ++here.launches;
  here.kernel_ns += gpu_ns;
  if (previous_ && previous_->timeline == &timeline) {
    const Launch& p = *previous_;
    const uint64_t interval = call.start_ns - p.call.start_ns;
    if (interval <= max_interval_) {
      Phase& before = phase(p.place.range);
      intervals_.add(interval);
      span_ns_ += interval;
      busy_ns_ += std::min(interval, p.gpu_ns);
      ++before.intervals;
      before.span_ns += interval;
      before.busy_ns += std::min(interval, p.gpu_ns);
      if (p.gpu_ns < interval) {
        ++short_count_;
        const uint64_t idle_from = (p.first ? p.first->start_ns : p.call.start_ns) + p.gpu_ns;
        idle_spans_.add(IdleSpan{uint64_t{p.timeline->file} << 32 | (p.first ? p.first->device : 0),
                                 idle_from, idle_from + (interval - p.gpu_ns)});
        where_.add(*p.timeline, &p.place, p.first ? &*p.first : nullptr, interval - p.gpu_ns);
        ++before.short_count;
        before.idle_ns += interval - p.gpu_ns;
        before.where.add(*p.timeline, &p.place, p.first ? &*p.first : nullptr, interval - p.gpu_ns);
      }
    }
  }
  previous_ =
      Launch{&timeline, call, place, gpu_ns, first ? std::optional<Work>(*first) : std::nullopt};
}

LaunchBoundTally::Phase& LaunchBoundTally::phase(const std::string* range) {
  if (last_phase_ != nullptr && range == last_range_) return *last_phase_;
  auto [it, fresh] = phase_of_.try_emplace(range, nullptr);
  if (fresh) it->second = &phases_[range != nullptr ? *range : std::string()];
  last_range_ = range;
  last_phase_ = it->second;
  return *last_phase_;
}

namespace {

bool fires(const RuleContext& context, uint64_t launches, uint64_t short_count, uint64_t busy_ns,
           uint64_t span_ns) {
  if (launches == 0 || launches < context.get(kId, "min_launches")) return false;
  const double short_share = static_cast<double>(short_count) / static_cast<double>(launches);
  const double busy_share =
      span_ns == 0 ? 1 : static_cast<double>(busy_ns) / static_cast<double>(span_ns);
  return short_share >= context.get(kId, "min_short_share") &&
         busy_share < context.get(kId, "max_gpu_busy");
}

// What a finding says of launches, of the run or of its launch-bound phases.
struct LaunchFigures {
  bool phase;  // the figures of phases: their means, not the run's medians
  uint64_t launches, short_count, idle_ns;
  double kernel_ns, interval_ns, busy_share;
};

std::vector<Metric> launch_evidence(const LaunchFigures& l, double impact_share) {
  const std::string_view average = l.phase ? "mean" : "median";
  return {
      count_metric("launches", l.phase ? "kernel launches in the phase" : "kernel launches",
                   l.launches),
      count_metric("short_launches", "kernels shorter than their launch interval", l.short_count),
      time_metric(fmt::format("{}_kernel_time", average), fmt::format("{} kernel time", average),
                  l.kernel_ns),
      time_metric(fmt::format("{}_launch_interval", average),
                  fmt::format("{} launch interval", average), l.interval_ns),
      share_metric("gpu_busy_share", "GPU busy between launches", l.busy_share),
      time_metric("idle_time", "GPU idle between them", l.idle_ns),
      share_metric("window_share", "share of the window", impact_share)};
}

std::string launch_suggestion(bool phase) {
  return fmt::format(
      "Give the GPU more work per launch{}: fuse {} small kernels (torch.compile, fused or "
      "foreach optimizers), batch the work, or capture the {} in a CUDA graph once "
      "(cudaStreamBeginCapture, cudaGraphLaunch; PyTorch: torch.cuda.graphs) and launch it "
      "whole.",
      phase ? " in that phase" : "", phase ? "its" : "the", phase ? "phase" : "loop");
}

}  // namespace

// The phases that are launch-bound on their own, the run as a whole not.
std::optional<Finding> LaunchBoundTally::phase_finding(const RuleContext& context) {
  std::vector<std::pair<const std::string*, const Phase*>> bound;
  for (const auto& [name, p] : phases_)
    if (fires(context, p.launches, p.short_count, p.busy_ns, p.span_ns))
      bound.emplace_back(&name, &p);
  if (bound.empty()) return std::nullopt;
  std::stable_sort(bound.begin(), bound.end(), [](const auto& a, const auto& b) {
    return a.second->idle_ns > b.second->idle_ns;
  });
  uint64_t launches = 0, short_count = 0, idle_ns = 0, busy_ns = 0, span_ns = 0, kernel_ns = 0,
           intervals = 0;
  std::vector<std::string> names;
  for (const auto& [name, p] : bound) {
    launches += p->launches;
    short_count += p->short_count;
    idle_ns += p->idle_ns;
    busy_ns += p->busy_ns;
    span_ns += p->span_ns;
    kernel_ns += p->kernel_ns;
    intervals += p->intervals;
    names.push_back(name->empty() ? "(no range)" : "'" + *name + "'");
  }
  // The largest phase's places; the others are named in the summary.
  const Phase& top = *bound.front().second;
  const double busy_share =
      span_ns == 0 ? 1 : static_cast<double>(busy_ns) / static_cast<double>(span_ns);
  const double mean_kernel = static_cast<double>(kernel_ns) / static_cast<double>(launches);
  const double mean_interval =
      intervals == 0 ? 0 : static_cast<double>(span_ns) / static_cast<double>(intervals);
  Finding f;
  f.rule = kId;
  set_impact(f, idle_ns, context.window_ns);
  f.evidence = launch_evidence(
      {true, launches, short_count, idle_ns, mean_kernel, mean_interval, busy_share},
      f.impact_share);
  f.evidence.push_back(count_metric("run_launches", "kernel launches in the run", launches_));
  f.evidence.push_back(share_metric(
      "run_gpu_busy_share", "GPU busy between launches, whole run",
      span_ns_ == 0 ? 1 : static_cast<double>(busy_ns_) / static_cast<double>(span_ns_)));
  f.where = top.where.finish(context.files);
  std::string phases = names.front();
  if (names.size() > 1) phases += fmt::format(" (and {} more)", names.size() - 1);
  f.summary = fmt::format(
      "In {}, {} of {} kernels ran shorter than the time to the next launch (mean kernel {}, mean "
      "launch interval {}): the GPU was busy {} of the time between launches there and idled {} "
      "waiting for the next, though over the whole run launches kept it busy enough.",
      phases, short_count, launches, time_text(mean_kernel), time_text(mean_interval),
      share_text(busy_share), time_text(idle_ns));
  f.suggestion = launch_suggestion(true);
  return f;
}

uint64_t LaunchBoundTally::union_of_idle_spans() {
  auto spans = idle_spans_.sorted();
  IdleSpan s{};
  uint64_t total = 0, device = UINT64_MAX, covered_to = 0;
  while (spans.next(s)) {
    if (s.file_device != device) {
      device = s.file_device;
      covered_to = 0;
    }
    const uint64_t from = std::max(s.start_ns, covered_to);
    if (s.end_ns > from) total += s.end_ns - from;
    covered_to = std::max(covered_to, s.end_ns);
  }
  return total;
}

std::optional<Finding> LaunchBoundTally::finish(const RuleContext& context) {
  const uint64_t launches = launches_, short_count = short_count_, busy_ns = busy_ns_,
                 span_ns = span_ns_;
  WhereBuilder& where = where_;
  if (!fires(context, launches, short_count, busy_ns, span_ns)) return phase_finding(context);
  const uint64_t idle_ns = union_of_idle_spans();
  const double busy_share =
      span_ns == 0 ? 1 : static_cast<double>(busy_ns) / static_cast<double>(span_ns);
  const double median_kernel = kernel_ns_.median();
  const double median_interval = intervals_.median();
  Finding f;
  f.rule = kId;
  set_impact(f, idle_ns, context.window_ns);
  f.evidence = launch_evidence(
      {false, launches, short_count, idle_ns, median_kernel, median_interval, busy_share},
      f.impact_share);
  add_per_step(f, context.files, "per_step", "launches per step", launches);
  f.where = where.finish(context.files);
  f.summary = fmt::format(
      "{} of {} kernels ran shorter than the time to the next launch (median kernel {}, median "
      "launch interval {}): the GPU was busy {} of the time between launches and idled {} "
      "waiting for the next.",
      short_count, launches, time_text(median_kernel), time_text(median_interval),
      share_text(busy_share), time_text(idle_ns));
  f.suggestion = launch_suggestion(false);
  return f;
}

const RuleSpec kLaunchBoundRule{
    kId, "kernels shorter than the time between their launches: the GPU idles between them",
    kThresholds, run};

}  // namespace gprof::findings
