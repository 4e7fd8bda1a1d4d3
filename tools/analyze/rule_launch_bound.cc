// launch-bound: kernels that finish before the CPU launches the next one, so
// that the GPU idles between them and the launch rate, not the GPU, sets the
// pace (HTA's "kernel launch statistics": short kernels whose launch overhead
// exceeds their run time).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tools/analyze/rule.h"
#include "tools/analyze/rule_support.h"
#include "tools/analyze/rules.h"
#include "tools/analyze/where_builder.h"

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
  const uint64_t max_interval = static_cast<uint64_t>(context.get(kId, "max_interval"));
  std::vector<uint64_t> kernel_ns, intervals;
  uint64_t launches = 0, short_count = 0, idle_ns = 0, busy_ns = 0, span_ns = 0;
  WhereBuilder where;
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
      for (size_t k = 0; k < calls.size(); ++k) {
        ++launches;
        kernel_ns.push_back(gpu_ns[calls[k]]);
        if (k + 1 == calls.size()) continue;
        const uint64_t interval =
            timeline.calls[calls[k + 1]].start_ns - timeline.calls[calls[k]].start_ns;
        if (interval > max_interval) continue;
        intervals.push_back(interval);
        span_ns += interval;
        busy_ns += std::min(interval, gpu_ns[calls[k]]);
        if (gpu_ns[calls[k]] >= interval) continue;
        ++short_count;
        idle_ns += interval - gpu_ns[calls[k]];
        const int32_t w = first[calls[k]];
        where.add(timeline, static_cast<int32_t>(calls[k]),
                  w == kNone ? nullptr : &timeline.work[w], interval - gpu_ns[calls[k]]);
      }
    }
  }
  if (launches == 0 || launches < context.get(kId, "min_launches")) return std::nullopt;
  const double short_share = static_cast<double>(short_count) / static_cast<double>(launches);
  const double busy_share =
      span_ns == 0 ? 1 : static_cast<double>(busy_ns) / static_cast<double>(span_ns);
  if (short_share < context.get(kId, "min_short_share") ||
      busy_share >= context.get(kId, "max_gpu_busy"))
    return std::nullopt;
  const double median_kernel = median(kernel_ns);
  const double median_interval = median(intervals);
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

}  // namespace

const RuleSpec kLaunchBoundRule{
    kId, "kernels shorter than the time between their launches: the GPU idles between them",
    kThresholds, run};

}  // namespace gprof::analyze
