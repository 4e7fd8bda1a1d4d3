// launch-bound: kernels that finish before the CPU launches the next one, so
// that the GPU idles between them and the launch rate, not the GPU, sets the
// pace (HTA's "kernel launch statistics": short kernels whose launch overhead
// exceeds their run time).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/analyze/rules/rule.h"
#include "tools/analyze/rules/rule_support.h"
#include "tools/analyze/rules/rule_tallies.h"
#include "tools/analyze/rules/rules.h"
#include "tools/analyze/rules/where_builder.h"

namespace gprof::analyze {
namespace {

constexpr std::string_view kId = "launch-bound";
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
  for (const Timeline& timeline : context.files) {
    const std::vector<uint64_t> gpu_ns = gpu_ns_by_call(timeline);
    const std::vector<int32_t> first = first_work(timeline);
    std::map<uint32_t, std::vector<uint32_t>> by_thread;
    for (uint32_t i = 0; i < timeline.calls.size(); ++i) {
      const Call& call = timeline.calls[i];
      if (call.category == ApiCategory::kLaunch && call.work > 0 && call.in_scope)
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
  return tally.finish(context);
}

}  // namespace

LaunchBoundTally::LaunchBoundTally(const Thresholds& thresholds)
    : max_interval_(static_cast<uint64_t>(thresholds.get(kId, "max_interval"))) {}

// A launch's interval is known when the next launch of its thread comes.
void LaunchBoundTally::launch(const Timeline& timeline, const Call& call, const CallPlace& place,
                              uint64_t gpu_ns, const Work* first) {
  ++launches_;
  kernel_ns_.add(gpu_ns);
  if (previous_ && previous_->timeline == &timeline) {
    const Launch& p = *previous_;
    const uint64_t interval = call.start_ns - p.call.start_ns;
    if (interval <= max_interval_) {
      intervals_.add(interval);
      span_ns_ += interval;
      busy_ns_ += std::min(interval, p.gpu_ns);
      if (p.gpu_ns < interval) {
        ++short_count_;
        idle_ns_ += interval - p.gpu_ns;
        where_.add(*p.timeline, &p.place, p.first ? &*p.first : nullptr, interval - p.gpu_ns);
      }
    }
  }
  previous_ =
      Launch{&timeline, call, place, gpu_ns, first ? std::optional<Work>(*first) : std::nullopt};
}

std::optional<Finding> LaunchBoundTally::finish(const RuleContext& context) {
  const uint64_t launches = launches_, short_count = short_count_, idle_ns = idle_ns_,
                 busy_ns = busy_ns_, span_ns = span_ns_;
  WhereBuilder& where = where_;
  if (launches == 0 || launches < context.get(kId, "min_launches")) return std::nullopt;
  const double short_share = static_cast<double>(short_count) / static_cast<double>(launches);
  const double busy_share =
      span_ns == 0 ? 1 : static_cast<double>(busy_ns) / static_cast<double>(span_ns);
  if (short_share < context.get(kId, "min_short_share") ||
      busy_share >= context.get(kId, "max_gpu_busy"))
    return std::nullopt;
  const double median_kernel = kernel_ns_.median();
  const double median_interval = intervals_.median();
  Finding f;
  f.rule = kId;
  set_impact(f, idle_ns, context.window_ns);
  f.evidence = {
      count_metric("launches", "kernel launches", launches),
      count_metric("short_launches", "kernels shorter than their launch interval", short_count),
      time_metric("median_kernel_time", "median kernel time", median_kernel),
      time_metric("median_launch_interval", "median launch interval", median_interval),
      share_metric("gpu_busy_share", "GPU busy between launches", busy_share),
      time_metric("idle_time", "GPU idle between them", idle_ns),
      share_metric("window_share", "share of the window", f.impact_share)};
  add_per_step(f, context.files, "per_step", "launches per step", launches);
  f.where = where.finish(context.files);
  f.summary = fmt::format(
      "{} of {} kernels ran shorter than the time to the next launch (median kernel {}, median "
      "launch interval {}): the GPU was busy {} of the time between launches and idled {} "
      "waiting for the next.",
      short_count, launches, time_text(median_kernel), time_text(median_interval),
      share_text(busy_share), time_text(idle_ns));
  f.suggestion =
      "Give the GPU more work per launch: fuse the small kernels (torch.compile, fused or "
      "foreach optimizers), batch the work, or capture the loop in a CUDA graph once "
      "(cudaStreamBeginCapture, cudaGraphLaunch; PyTorch: torch.cuda.graphs) and launch it "
      "whole.";
  return f;
}

const RuleSpec kLaunchBoundRule{
    kId, "kernels shorter than the time between their launches: the GPU idles between them",
    kThresholds, run};

}  // namespace gprof::analyze
