#include "tools/findings/rules/rule_support.h"

#include <fmt/format.h>

#include <algorithm>

#include "tools/analysis/model/steps.h"
#include "tools/analysis/render/format.h"

namespace gprof::findings {

bool is_pageable(const Work& work) {
  return work.kind == GpuKind::kMemcpy &&
         (work.src_kind == kMemoryPageable || work.dst_kind == kMemoryPageable);
}

bool is_device_to_host(const Work& work) {
  return work.kind == GpuKind::kMemcpy &&
         (work.copy_kind == kCopyDtoH || work.copy_kind == kCopyAtoH);
}

bool blocks_host(const Call& call, const Work* work) {
  if (call.category == ApiCategory::kSync)
    return call.api != ApiId::cudaStreamWaitEvent && call.api != ApiId::cudaStreamWaitEvent_ptsz;
  if (call.category != ApiCategory::kCopy) return false;
  // An Async copy into pageable memory may block ("might be synchronous"):
  // it did when the call lasted until its copy began.
  if (call.async)
    return work != nullptr && is_device_to_host(*work) && work->dst_kind == kMemoryPageable &&
           call.end_ns >= work->start_ns;
  if (work != nullptr) {
    // CUpti_ActivityMemcpyKind: HtoD 1, DtoH 2, HtoA 3, AtoH 4, HtoH 9 touch the host.
    const uint8_t kind = work->copy_kind;
    return kind == 1 || kind == 2 || kind == 3 || kind == 4 || kind == 9;
  }
  // cudaMemcpyKind: HostToHost 0, HostToDevice 1, DeviceToHost 2, Default 4 (may).
  return call.copy_kind != 3;
}

std::vector<int32_t> first_work(const Timeline& timeline) {
  std::vector<int32_t> out(timeline.calls.size(), kNone);
  for (size_t i = 0; i < timeline.work.size(); ++i) {
    const int32_t call = timeline.work[i].call;
    if (call != kNone && out[call] == kNone) out[call] = static_cast<int32_t>(i);
  }
  return out;
}

std::vector<uint64_t> gpu_ns_by_call(const Timeline& timeline) {
  std::vector<uint64_t> out(timeline.calls.size(), 0);
  for (const Work& w : timeline.work)
    if (w.call != kNone) out[w.call] += w.duration();
  return out;
}

double median(std::vector<uint64_t>& values) {
  std::sort(values.begin(), values.end());
  return analysis::quantile(values, 0.5);
}

std::string_view api_name(ApiId api) {
  const ApiInfo* info = api_info(api);
  return info ? info->display : std::string_view("(unknown API)");
}

std::string time_text(double ns) {
  return analysis::format_time(ns);
}
std::string bytes_text(double bytes) {
  return analysis::format_memory(static_cast<int64_t>(bytes));
}
std::string share_text(double share) {
  return fmt::format("{:.1f}%", share * 100);
}
std::string count_text(uint64_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

Metric count_metric(std::string key, std::string label, double value) {
  return Metric{std::move(key), std::move(label), value, Unit::kCount};
}
Metric time_metric(std::string key, std::string label, double ns) {
  return Metric{std::move(key), std::move(label), ns, Unit::kTime};
}
Metric bytes_metric(std::string key, std::string label, double bytes) {
  return Metric{std::move(key), std::move(label), bytes, Unit::kBytes};
}
Metric share_metric(std::string key, std::string label, double share) {
  return Metric{std::move(key), std::move(label), share, Unit::kShare};
}

void set_impact(Finding& finding, uint64_t impact_ns, uint64_t window_ns) {
  finding.impact_ns = impact_ns;
  finding.impact_share =
      window_ns == 0
          ? 0
          : std::min(1.0, static_cast<double>(impact_ns) / static_cast<double>(window_ns));
  finding.severity = severity_of(finding.impact_share);
}

void add_per_step(Finding& finding, const std::vector<Timeline>& files, std::string key,
                  std::string label, uint64_t count) {
  uint64_t steps = 0;
  for (const Timeline& timeline : files) steps += timeline.steps.size();
  if (steps == 0) return;
  finding.evidence.push_back(Metric{std::move(key), std::move(label),
                                    static_cast<double>(count) / static_cast<double>(steps),
                                    Unit::kPerStep});
}

}  // namespace gprof::findings
