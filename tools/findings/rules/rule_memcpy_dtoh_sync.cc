// memcpy-dtoh-sync: device-to-host copies that block the CPU until the
// kernels queued before them have run: a loss read back every step (PyTorch's
// .item(), .cpu(), printing a tensor). The CPU stops queueing until the GPU
// drains, and the GPU then idles until the CPU catches up (nsys analyze's
// cuda_memcpy_sync rule, for the direction that waits on kernels).
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

constexpr std::string_view kId = MemcpyDtohSyncTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_count", 5, ThresholdUnit::kCount,
     "fires from this many blocking device-to-host copies that waited for kernels"},
};

std::optional<Finding> run(const RuleContext& context) {
  MemcpyDtohSyncTally tally;
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, MemcpyDtohSyncTally& tally) {
  // Kernel end times per device, sorted: did one end while a copy waited?
  std::map<uint32_t, std::vector<uint64_t>> kernel_ends;
  for (const Work& w : timeline.work)
    if (w.kind == GpuKind::kKernel) kernel_ends[w.device].push_back(w.end_ns);
  for (auto& [device, ends] : kernel_ends) std::sort(ends.begin(), ends.end());
  const std::vector<int32_t> first = first_work(timeline);
  for (size_t i = 0; i < timeline.work.size(); ++i) {
    const Work& w = timeline.work[i];
    if (w.call == kNone) continue;
    const Call& call = timeline.calls[w.call];
    if (!MemcpyDtohSyncTally::candidate(timeline, call, w,
                                        first[w.call] == static_cast<int32_t>(i)))
      continue;
    const auto ends = kernel_ends.find(w.device);
    if (ends == kernel_ends.end()) continue;
    const auto it = std::lower_bound(ends->second.begin(), ends->second.end(), call.start_ns);
    if (it == ends->second.end() || *it > w.start_ns) continue;
    tally.add(timeline, call, place_of(timeline, call), w);
  }
}

bool MemcpyDtohSyncTally::candidate(const Timeline& timeline, const Call& call, const Work& work,
                                    bool first) {
  return is_device_to_host(work) && first && timeline.counted(call) && blocks_host(call, &work) &&
         work.start_ns > call.start_ns;
}

void MemcpyDtohSyncTally::add(const Timeline& timeline, const Call& call, const CallPlace& place,
                              const Work& w) {
  sizes_.add(w.bytes);
  blocked_ns_ += call.duration();
  wait_ns_ += std::min(w.start_ns, call.end_ns) - call.start_ns;
  where_.add(timeline, &place, &w, call.duration());
}

std::optional<Finding> MemcpyDtohSyncTally::finish(const RuleContext& context) {
  const uint64_t blocked_ns = blocked_ns_, wait_ns = wait_ns_;
  WhereBuilder& where = where_;
  const uint64_t copies = sizes_.size();
  if (copies == 0 || copies < context.get(kId, "min_count")) return std::nullopt;
  const double median_bytes = sizes_.median();
  Finding f;
  f.rule = kId;
  set_impact(f, blocked_ns, context.window_ns);
  f.evidence = {count_metric("copies", "blocking device-to-host copies", copies),
                bytes_metric("median_bytes", "median size", median_bytes),
                time_metric("blocked_time", "CPU time blocked in them", blocked_ns),
                time_metric("wait_time", "of which waiting for earlier kernels", wait_ns),
                share_metric("window_share", "share of the window", f.impact_share)};
  add_per_step(f, context.files, "per_step", "copies per step", copies);
  f.where = where.finish(context.files);
  f.summary = fmt::format(
      "{} (median {}) blocked the CPU for {}, {} of it waiting for the kernels queued before "
      "them (a .item() or .cpu() in the loop): the CPU queues nothing until the GPU has "
      "drained.",
      count_text(copies, "device-to-host copy", "device-to-host copies"), bytes_text(median_bytes),
      time_text(blocked_ns), time_text(wait_ns));
  f.suggestion =
      "Read results back less often (every N steps), keep them on the GPU (accumulate the loss "
      "in a tensor), or copy into pinned memory with cudaMemcpyAsync and an event and read the "
      "value once the next step is queued (PyTorch: .to('cpu', non_blocking=True) into a "
      "pinned tensor).";
  return f;
}

const RuleSpec kMemcpyDtohSyncRule{
    kId, "device-to-host copies that block right after kernels (a .item() in the loop)",
    kThresholds, run};

}  // namespace gprof::findings
