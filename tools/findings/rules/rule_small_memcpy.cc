// small-memcpy: many small copies. Each copy costs a call and a few
// microseconds of fixed latency whatever its size, so a hundred 4 KB copies
// take far longer than one 400 KB copy.
#include <fmt/format.h>

#include <algorithm>

#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"
#include "tools/findings/rules/where_builder.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = SmallMemcpyTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"max_bytes", 64 * 1024, ThresholdUnit::kBytes, "a copy smaller than this is small"},
    {"min_count", 50, ThresholdUnit::kCount, "fires from this many small copies"},
};

std::optional<Finding> run(const RuleContext& context) {
  SmallMemcpyTally tally(context.thresholds);
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, SmallMemcpyTally& tally) {
  tally.begin_file();
  add_work(timeline, tally);
}

SmallMemcpyTally::SmallMemcpyTally(const Thresholds& thresholds)
    : max_bytes_(thresholds.get(kId, "max_bytes")) {}

void SmallMemcpyTally::add(const Timeline& timeline, const WorkEvent& event) {
  const Work& w = event.work;
  if (w.kind != GpuKind::kMemcpy || static_cast<double>(w.bytes) >= max_bytes_ || !event.counted)
    return;
  sizes_.add(w.bytes);
  bytes_ += w.bytes;
  gpu_ns_ += w.duration();
  // A copy costs its GPU time and the call that issued it; a blocking
  // call's time holds its copy's GPU time (the host waited for it), so its
  // cost is the call: the share then matches the calls' CPU time the
  // evidence gives (5,000 blocking 64-byte copies said 0.9% of the window
  // for 38 ms of calls, 8.7% of it). Not a device-to-host call's wait for
  // the kernels before its copy (memcpy-dtoh-sync's): from its copy's start.
  uint64_t cost = w.duration();
  if (event.call != nullptr && w.call != last_call_) {
    const Call& call = *event.call;
    if (!blocks_host(call, &w))
      cost = call.duration() + w.duration();
    else if (is_device_to_host(w) && w.start_ns > call.start_ns)
      cost = std::max(call.end_ns, w.end_ns) - w.start_ns;
    else
      cost = std::max(call.duration(), w.duration());
    cpu_ns_ += call.duration();
    last_call_ = w.call;
  }
  impact_ns_ += cost;
  where_.add(timeline, event.place, &w, cost);
}

std::optional<Finding> SmallMemcpyTally::finish(const RuleContext& context) {
  const double max_bytes = max_bytes_;
  const uint64_t bytes = bytes_, gpu_ns = gpu_ns_, cpu_ns = cpu_ns_, impact_ns = impact_ns_;
  WhereBuilder& where = where_;
  const uint64_t copies = sizes_.size();
  if (copies == 0 || copies < context.get(kId, "min_count")) return std::nullopt;
  const double median_bytes = sizes_.median();
  Finding f;
  f.rule = kId;
  set_impact(f, impact_ns, context.window_ns);
  f.evidence = {count_metric("copies", "copies", copies),
                bytes_metric("median_bytes", "median size", median_bytes),
                bytes_metric("bytes", "bytes", bytes),
                time_metric("gpu_time", "GPU time", gpu_ns),
                time_metric("cpu_time", "CPU time in the copy calls", cpu_ns),
                share_metric("window_share", "share of the window", f.impact_share)};
  add_per_step(f, context.files, "per_step", "copies per step", copies);
  f.where = where.finish(context.files);
  f.summary = fmt::format(
      "{} smaller than {} (median {}, {} in all) took {} on the GPU and {} of CPU time in the "
      "calls: each copy pays a fixed cost of a call and a transfer, whatever its size.",
      count_text(copies, "copy", "copies"), bytes_text(max_bytes), bytes_text(median_bytes),
      bytes_text(bytes), time_text(gpu_ns), time_text(cpu_ns));
  f.suggestion =
      "Batch them: gather the values into one (pinned) buffer and copy it once, or issue them "
      "together with cudaMemcpyBatchAsync or cudaMemcpy2DAsync (PyTorch: torch.cat or a flat "
      "tensor, then one .to(device)).";
  return f;
}

const RuleSpec kSmallMemcpyRule{kId, "many small copies that could be batched", kThresholds, run};

}  // namespace gprof::findings
