// pageable-memcpy: copies to or from pageable host memory. The driver stages
// them through a pinned buffer of its own, so they run at a fraction of the
// bus's speed and cannot overlap with kernels; synchronous ones hold the CPU
// (nsys analyze's cuda_memcpy_async rule looks for the Async ones).
#include <fmt/format.h>

#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"
#include "tools/findings/rules/where_builder.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = PageableMemcpyTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_count", 10, ThresholdUnit::kCount,
     "fires from this many copies with a pageable side; a one-off setup copy is no problem"},
};

std::optional<Finding> run(const RuleContext& context) {
  PageableMemcpyTally tally;
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, PageableMemcpyTally& tally) {
  tally.begin_file();
  add_work(timeline, tally);
}

void PageableMemcpyTally::add(const Timeline& timeline, const WorkEvent& event) {
  const Work& w = event.work;
  if (!is_pageable(w) || !event.counted) return;
  ++copies_;
  bytes_ += w.bytes;
  gpu_ns_ += w.duration();
  if (is_device_to_host(w))
    ++to_host_;
  else
    ++to_device_;
  uint64_t cost = w.duration();
  if (event.call != nullptr && w.call != last_call_) {
    cost = event.call->duration();
    cpu_ns_ += cost;
    last_call_ = w.call;
  }
  where_.add(timeline, event.place, &w, cost);
}

std::optional<Finding> PageableMemcpyTally::finish(const RuleContext& context) {
  const uint64_t copies = copies_, bytes = bytes_, gpu_ns = gpu_ns_, cpu_ns = cpu_ns_,
                 to_device = to_device_, to_host = to_host_;
  WhereBuilder& where = where_;
  if (copies == 0 || copies < context.get(kId, "min_count")) return std::nullopt;
  Finding f;
  f.rule = kId;
  set_impact(f, cpu_ns, context.window_ns);
  f.evidence = {count_metric("copies", "copies", copies),
                bytes_metric("bytes", "bytes", bytes),
                time_metric("gpu_time", "GPU time", gpu_ns),
                time_metric("cpu_time", "CPU time in the copy calls", cpu_ns),
                share_metric("window_share", "share of the window", f.impact_share),
                count_metric("host_to_device", "host to device", to_device),
                count_metric("device_to_host", "device to host", to_host)};
  add_per_step(f, context.files, "per_step", "copies per step", copies);
  f.where = where.finish(context.files);
  f.summary = fmt::format(
      "{} ({}) went to or from pageable host memory: {} on the GPU, {} of CPU time in the copy "
      "calls ({} of the window). The driver stages pageable copies through its own pinned "
      "buffer, so they are slow and cannot overlap with kernels.",
      count_text(copies, "copy", "copies"), bytes_text(bytes), time_text(gpu_ns), time_text(cpu_ns),
      share_text(f.impact_share));
  f.suggestion =
      "Allocate the host buffers pinned (cudaMallocHost or cudaHostAlloc; PyTorch: "
      "DataLoader(pin_memory=True) or tensor.pin_memory()) and copy with cudaMemcpyAsync on a "
      "non-default stream (PyTorch: .to(device, non_blocking=True)), so that copies overlap "
      "with kernels.";
  return f;
}

const RuleSpec kPageableMemcpyRule{
    kId, "copies to or from pageable host memory (pinned memory would let them overlap)",
    kThresholds, run};

}  // namespace gprof::findings
