// exposed-comm: collectives (NCCL's kernels) running with no compute kernel
// beside them on their GPU, so that the step waits for the network or for
// the other ranks instead of hiding communication behind the backward pass
// (HTA's comm_comp_overlap; DDP's gradient buckets and FSDP's prefetch exist
// to avoid it).
#include <fmt/format.h>

#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = ExposedCommTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_share", 0.05, ThresholdUnit::kShare,
     "fires when communication with no compute beside it adds up to this share of the window"},
};

std::optional<Finding> run(const RuleContext& context) {
  ExposedCommTally tally;
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, ExposedCommTally& tally) {
  tally.begin_file(timeline);
  add_work(timeline, tally);
  tally.end_file(timeline);
}

void ExposedCommTally::begin_file(const Timeline& /*timeline*/) {
  devices_.clear();
  last_device_ = nullptr;
  collective_.clear();
}

void ExposedCommTally::add(const Timeline& timeline, const WorkEvent& event) {
  const Work& w = event.work;
  if (w.kind != GpuKind::kKernel || !event.in_scope) return;
  if (last_device_ == nullptr || w.device != last_device_id_) {
    last_device_ = &devices_[w.device];  // std::map: the entry stays where it is
    last_device_id_ = w.device;
  }
  Device& device = *last_device_;
  const bool communication = collective_.is(timeline.names, w.name);
  if (communication && !event.counted) return;  // the setup's: neither charged nor compute
  uint64_t tag = 0;
  if (communication) {
    tag = next_tag_++;
    ++collectives_;
    device.unsettled.push_back(
        Collective{tag, w, event.place ? *event.place : CallPlace{}, event.place != nullptr});
  }
  device.sweep.add(w.start_ns, w.end_ns, communication, tag);
  drain(timeline, device);
}

void ExposedCommTally::drain(const Timeline& timeline, Device& device) {
  for (const Segment& piece : device.sweep.exposed) {
    while (!device.unsettled.empty() && device.unsettled.front().tag < piece.tag)
      device.unsettled.pop_front();
    exposed_ns_ += piece.length();
    if (device.unsettled.empty()) continue;  // cannot be: its collective is held until settled
    const Collective& c = device.unsettled.front();
    where_.add(timeline, c.has_call ? &c.place : nullptr, &c.work, piece.length());
  }
  device.sweep.exposed.clear();
  device.sweep.compute.clear();
  device.sweep.busy.clear();
  const uint64_t oldest = device.sweep.oldest_unsettled_tag();
  while (!device.unsettled.empty() && device.unsettled.front().tag < oldest)
    device.unsettled.pop_front();
}

void ExposedCommTally::end_file(const Timeline& timeline) {
  for (auto& [id, device] : devices_) {
    device.sweep.finish();
    drain(timeline, device);
    communication_ns_ += device.sweep.communication_ns();
  }
  devices_.clear();
  last_device_ = nullptr;
}

std::optional<Finding> ExposedCommTally::finish(const RuleContext& context) {
  if (exposed_ns_ == 0 || context.window_ns == 0) return std::nullopt;
  const double window_share =
      static_cast<double>(exposed_ns_) / static_cast<double>(context.window_ns);
  if (window_share < context.get(kId, "min_share")) return std::nullopt;
  const double exposed_share =
      static_cast<double>(exposed_ns_) / static_cast<double>(communication_ns_);
  Finding f;
  f.rule = kId;
  set_impact(f, exposed_ns_, context.window_ns);
  f.evidence = {
      count_metric("collectives", "collective kernels", collectives_),
      time_metric("communication_time", "time in collectives", communication_ns_),
      time_metric("exposed_time", "of it with no compute beside it", exposed_ns_),
      share_metric("exposed_share", "share of the collectives' time exposed", exposed_share),
      share_metric("window_share", "share of the window", f.impact_share)};
  uint64_t steps = 0;
  for (const Timeline& timeline : context.files) steps += timeline.steps.size();
  if (steps > 0)
    f.evidence.push_back(
        time_metric("per_step", "exposed per step",
                    static_cast<double>(exposed_ns_) / static_cast<double>(steps)));
  f.where = where_.finish(context.files);
  f.summary = fmt::format(
      "Collectives (NCCL) ran {} on the GPU, {} ({}) of it with no compute kernel beside them: "
      "{} of the window in which the GPU only communicated or waited for the other ranks.",
      time_text(communication_ns_), time_text(exposed_ns_), share_text(exposed_share),
      share_text(f.impact_share));
  f.suggestion =
      "Overlap communication with compute: DDP all-reduces gradient buckets during the backward "
      "pass (bucket_cap_mb; static_graph=True; avoid find_unused_parameters), FSDP prefetches "
      "(forward_prefetch=True, backward_prefetch=BACKWARD_PRE), and your own collectives can "
      "run with async_op=True and be waited for where their result is needed. Exposed time on "
      "all ranks but one is often a wait for a slower rank: see the straggler rule.";
  return f;
}

const RuleSpec kExposedCommRule{
    kId, "collectives (NCCL kernels) with no compute kernel running beside them on their GPU",
    kThresholds, run};

}  // namespace gprof::findings
