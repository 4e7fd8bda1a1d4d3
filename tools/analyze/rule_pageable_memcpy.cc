// pageable-memcpy: copies to or from pageable host memory. The driver stages
// them through a pinned buffer of its own, so they run at a fraction of the
// bus's speed and cannot overlap with kernels; synchronous ones hold the CPU
// (nsys analyze's cuda_memcpy_async rule looks for the Async ones).
#include <fmt/format.h>

#include "tools/analyze/rule.h"
#include "tools/analyze/rule_support.h"
#include "tools/analyze/rules.h"
#include "tools/analyze/where_builder.h"

namespace gprof::analyze {
namespace {

constexpr std::string_view kId = "pageable-memcpy";
constexpr ThresholdSpec kThresholds[] = {
    {"min_count", 10, ThresholdUnit::kCount,
     "fires from this many copies with a pageable side; a one-off setup copy is no problem"},
};

std::optional<Finding> run(const RuleContext& context) {
  uint64_t copies = 0, bytes = 0, gpu_ns = 0, cpu_ns = 0, to_device = 0, to_host = 0;
  WhereBuilder where;
  for (const Timeline& timeline : context.files) {
    int32_t last_call = kNone;
    for (const Work& w : timeline.work) {
      if (!is_pageable(w) || !timeline.in_scope(w)) continue;
      ++copies;
      bytes += w.bytes;
      gpu_ns += w.duration();
      if (is_device_to_host(w))
        ++to_host;
      else
        ++to_device;
      uint64_t cost = w.duration();
      if (w.call != kNone && w.call != last_call) {
        cost = timeline.calls[w.call].duration();
        cpu_ns += cost;
        last_call = w.call;
      }
      where.add(timeline, w.call, &w, cost);
    }
  }
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

}  // namespace

const RuleSpec kPageableMemcpyRule{
    kId, "copies to or from pageable host memory (pinned memory would let them overlap)",
    kThresholds, run};

}  // namespace gprof::analyze
