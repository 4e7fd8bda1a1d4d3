// excessive-sync: the CPU blocked in synchronize calls, each followed by
// more GPU work (a wait with nothing after it, at the end of the program,
// costs nothing): while the CPU waits it queues nothing, so the GPU runs dry
// once it has caught up (nsys analyze's cuda_api_sync rule). A blocking copy
// is the copy rules' evidence (pageable-memcpy, small-memcpy,
// memcpy-dtoh-sync), never this one's: counted here too, its time was told
// twice (a program's 5,199 pageable cudaMemcpy calls were 98% of this
// finding, and its 300 cudaDeviceSynchronize calls 1.6%).
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

constexpr std::string_view kId = ExcessiveSyncTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_share", 0.1, ThresholdUnit::kShare,
     "fires when a thread spent this share of the window blocked"},
    {"min_count", 3, ThresholdUnit::kCount, "and made at least this many blocking calls"},
};

std::optional<Finding> run(const RuleContext& context) {
  ExcessiveSyncTally tally;
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

}  // namespace

void add_timeline(const Timeline& timeline, ExcessiveSyncTally& tally) {
  const std::vector<int32_t> first = first_work(timeline);
  // The start of each thread's last call that issued GPU work.
  std::map<uint32_t, uint64_t> last_issue;
  for (const Call& call : timeline.calls)
    if (call.work > 0) last_issue[call.tid] = std::max(last_issue[call.tid], call.start_ns);
  for (size_t i = 0; i < timeline.calls.size(); ++i) {
    const Call& call = timeline.calls[i];
    const auto issue = last_issue.find(call.tid);
    tally.add(timeline, call, place_of(timeline, call),
              first[i] == kNone ? nullptr : &timeline.work[first[i]],
              issue == last_issue.end() ? nullptr : &issue->second);
  }
  tally.end_file(timeline);
}

void ExcessiveSyncTally::add(const Timeline& timeline, const Call& call, const CallPlace& place,
                             const Work* work, const uint64_t* last_issue) {
  if (!timeline.counted(call) || call.api == ApiId::kUnknown) return;
  if (call.category != ApiCategory::kSync || !blocks_host(call, work)) return;
  if (last_issue == nullptr || *last_issue <= call.end_ns) return;
  ++count_;
  blocked_ns_ += call.duration();
  by_thread_[call.tid] += call.duration();
  if (place.step != kNone) by_step_thread_[{place.step, call.tid}] += call.duration();
  auto& [calls, ns] = by_api_[api_name(call.api)];
  ++calls;
  ns += call.duration();
  where_.add(timeline, &place, work, call.duration());
}

void ExcessiveSyncTally::end_file(const Timeline& timeline) {
  for (const auto& [tid, ns] : by_thread_) busiest_ns_ = std::max(busiest_ns_, ns);
  by_thread_.clear();
  std::vector<uint64_t> busiest(timeline.steps.size(), 0);
  for (const auto& [at, ns] : by_step_thread_) busiest[at.first] = std::max(busiest[at.first], ns);
  by_step_thread_.clear();
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    const uint64_t length = timeline.steps[i].end_ns - timeline.steps[i].start_ns;
    if (length == 0) continue;
    step_shares_.push_back(std::min(busiest[i], length) * 1000000 / length);
    step_blocked_ns_ += busiest[i];
  }
}

std::optional<Finding> ExcessiveSyncTally::finish(const RuleContext& context) {
  const uint64_t count = count_, blocked_ns = blocked_ns_, busiest_ns = busiest_ns_;
  const auto& by_api = by_api_;
  WhereBuilder& where = where_;
  if (count == 0 || count < context.get(kId, "min_count")) return std::nullopt;
  const double busiest_share = context.window_ns == 0 ? 0
                                                      : static_cast<double>(busiest_ns) /
                                                            static_cast<double>(context.window_ns);
  const double min_share = context.get(kId, "min_share");
  std::vector<uint64_t> shares = step_shares_;
  const double step_share = shares.empty() ? 0 : median(shares) / 1e6;
  // The steps judged on their own when the window is not blocked enough:
  // time outside them (an evaluation without waits, the end of the run) can
  // hide steps that wait most of the time (issue 32 item 1).
  const bool in_steps = busiest_share < min_share;
  if (in_steps && (shares.empty() || step_share < min_share)) return std::nullopt;
  Finding f;
  f.rule = kId;
  set_impact(f, in_steps ? step_blocked_ns_ : blocked_ns, context.window_ns);
  if (!in_steps) {
    f.impact_share = std::min(1.0, busiest_share);
    f.severity = severity_of(f.impact_share);
  }
  f.evidence = {count_metric("calls", "blocking calls", count),
                time_metric("blocked_time", "CPU time blocked", blocked_ns),
                share_metric("window_share", "share of the window (busiest thread)",
                             std::min(1.0, busiest_share))};
  if (in_steps) {
    f.evidence.push_back(share_metric("median_step_blocked_share",
                                      "median share of a step blocked (busiest thread)",
                                      step_share));
    f.evidence.push_back(time_metric("step_blocked_time", "blocked inside steps (busiest thread)",
                                     step_blocked_ns_));
  }
  add_per_step(f, context.files, "per_step", "blocking calls per step", count);
  std::vector<std::pair<std::string_view, std::pair<uint64_t, uint64_t>>> apis(by_api.begin(),
                                                                               by_api.end());
  std::stable_sort(apis.begin(), apis.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  std::string listed;
  for (const auto& [name, stats] : apis) {
    f.evidence.push_back(
        count_metric(fmt::format("calls.{}", name), fmt::format("{} calls", name), stats.first));
    f.evidence.push_back(
        time_metric(fmt::format("time.{}", name), fmt::format("{} time", name), stats.second));
    listed += fmt::format("{}{} {} ({})", listed.empty() ? "" : ", ", stats.first, name,
                          time_text(stats.second));
  }
  f.where = where.finish(context.files);
  std::string per_step;
  if (f.where.steps > 0)
    per_step = fmt::format(", {:.1f} per step",
                           static_cast<double>(count) / static_cast<double>(f.where.steps));
  if (in_steps)
    f.summary = fmt::format(
        "In the median step a thread waited {} of the time in {} followed by more GPU work{}, "
        "though over the whole window only {}: the time outside the steps hides it. {}. While "
        "it waits it queues nothing, so the GPU runs dry after each wait.",
        share_text(step_share), count_text(count, "blocking call", "blocking calls"), per_step,
        share_text(busiest_share), listed);
  else
    f.summary = fmt::format(
        "The CPU waited {} ({} of the window) in {} followed by more GPU work{}: {}. While it "
        "waits it queues nothing, so the GPU runs dry after each wait.",
        time_text(blocked_ns), share_text(f.impact_share),
        count_text(count, "blocking call", "blocking calls"), per_step, listed);
  f.suggestion =
      "Synchronize once, after the loop or only where the host needs a result; make streams "
      "wait on events (cudaStreamWaitEvent) instead of blocking the host; in PyTorch, avoid "
      "torch.cuda.synchronize() inside the step (a .item() or .cpu() is a blocking copy: "
      "memcpy-dtoh-sync).";
  return f;
}

const RuleSpec kExcessiveSyncRule{
    kId, "the CPU blocked in synchronize calls for a large share of the window", kThresholds, run};

}  // namespace gprof::findings
