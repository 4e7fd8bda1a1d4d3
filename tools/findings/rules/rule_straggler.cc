// straggler: the rank whose steps take longer than the others', and where
// its extra time went. In synchronous data-parallel training every rank waits
// for the slowest one in its collectives, so all step times look alike; what
// differs is the time a rank spends on its own work. A rank's step is split
// into GPU work, communication with no compute beside it (mostly that wait),
// data loading while the GPU was idle, and the rest (the CPU's: Python,
// launches); the straggler is the rank whose step without the exposed
// communication is longest, by more than the steps' own spread. HTA answers
// "which rank is slow" from kineto traces the same way.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tools/analysis/model/steps.h"
#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/rules/rules.h"

namespace gprof::findings {
namespace {

constexpr std::string_view kId = StragglerTally::kRule;
constexpr ThresholdSpec kThresholds[] = {
    {"min_excess", 0.05, ThresholdUnit::kShare,
     "fires when a rank's steps, less their exposed communication, take this much longer than "
     "the other ranks' median (and longer than the steps' own spread)"},
};
// A rank needs this many steps for its median and spread to mean something.
constexpr uint64_t kMinSteps = 3;

std::optional<Finding> run(const RuleContext& context) {
  StragglerTally tally(context.thresholds);
  for (const Timeline& timeline : context.files) add_timeline(timeline, tally);
  return tally.finish(context);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Where a rank's step went, by part, as the finding names them.
struct Part {
  std::string_view key;
  std::string_view label;
  double StragglerTally::Rank::*ns;
  std::string_view advice;
};
const std::array<Part, 4> kParts = {{
    {"data_wait", "data loading while the GPU was idle", &StragglerTally::Rank::data_ns,
     "Give its DataLoader more workers (num_workers), pin_memory=True and "
     "a prefetch_factor, check that its shard is no larger than the others' and that its "
     "storage is as fast."},
    {"cpu_time", "CPU time with the GPU idle", &StragglerTally::Rank::cpu_ns,
     "Look for another process on its cores, a host with slower cores, or Python work only it "
     "does (logging, metrics, checkpoints or evaluation on rank 0); check its CPU affinity "
     "(numactl, taskset) and move that work out of the step."},
    {"gpu_time", "GPU time", &StragglerTally::Rank::gpu_ns,
     "Look for a slower or throttled GPU (nvidia-smi -q -d PERFORMANCE,CLOCK), longer "
     "sequences or larger batches on this rank, or work only it does."},
    {"exposed_comm", "communication with no compute beside it", &StragglerTally::Rank::comm_ns,
     "Look for a slower link (nvidia-smi topo -m; NCCL_DEBUG=INFO names the transport each "
     "ring uses)."},
}};

}  // namespace

void add_timeline(const Timeline& timeline, StragglerTally& tally) {
  tally.begin_file(timeline);
  add_work(timeline, tally);
  tally.end_file(timeline);
}

StragglerTally::StragglerTally(const Thresholds& thresholds)
    : min_excess_(thresholds.get(kId, "min_excess")) {}

void StragglerTally::begin_file(const Timeline& timeline) {
  sweep_ = CommComputeSweep{};
  collective_.clear();
  steps_ = &timeline.steps;
  gpu_ns_.assign(timeline.steps.size(), 0);
  comm_ns_.assign(timeline.steps.size(), 0);
  data_busy_ns_.assign(timeline.steps.size(), 0);
  loading_ = &timeline.data_loading;
  next_loading_ = 0;
}

void StragglerTally::add(const Timeline& timeline, const WorkEvent& event) {
  const Work& w = event.work;
  if (w.kind == GpuKind::kSync || !event.in_scope || timeline.steps.empty()) return;
  const bool communication = w.kind == GpuKind::kKernel && collective_.is(timeline.names, w.name);
  sweep_.add(w.start_ns, w.end_ns, communication);
  take();
}

// The sweep's final stretches into the steps; the GPU's busy stretches cut
// out of the data loading, so that loading counts only while the GPU idled.
void StragglerTally::take() {
  for (const Segment& s : sweep_.compute) add_to_steps(*steps_, s.start_ns, s.end_ns, gpu_ns_);
  for (const Segment& s : sweep_.exposed) add_to_steps(*steps_, s.start_ns, s.end_ns, comm_ns_);
  const auto& loading = *loading_;
  for (const Segment& s : sweep_.busy) {
    while (next_loading_ < loading.size() && loading[next_loading_].second <= s.start_ns)
      ++next_loading_;
    for (size_t i = next_loading_; i < loading.size() && loading[i].first < s.end_ns; ++i) {
      const uint64_t from = std::max(s.start_ns, loading[i].first);
      const uint64_t to = std::min(s.end_ns, loading[i].second);
      if (from < to) add_to_steps(*steps_, from, to, data_busy_ns_);
    }
  }
  sweep_.compute.clear();
  sweep_.exposed.clear();
  sweep_.busy.clear();
}

void StragglerTally::end_file(const Timeline& timeline) {
  sweep_.finish();
  take();
  if (timeline.steps.size() < kMinSteps) return;
  std::vector<double> step, own, data, cpu, gpu, comm;
  std::vector<uint64_t> loading(timeline.steps.size(), 0);
  for (const auto& [start, end] : *loading_) add_to_steps(timeline.steps, start, end, loading);
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    const Step& s = timeline.steps[i];
    const uint64_t length = s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
    const uint64_t g = gpu_ns_[i], c = comm_ns_[i];
    const uint64_t d = loading[i] - std::min(loading[i], data_busy_ns_[i]);
    // The parts do not overlap: compute, then communication without it,
    // then loading without either.
    step.push_back(static_cast<double>(length));
    own.push_back(static_cast<double>(length - std::min(length, c)));
    gpu.push_back(static_cast<double>(g));
    comm.push_back(static_cast<double>(c));
    data.push_back(static_cast<double>(d));
    cpu.push_back(static_cast<double>(length - std::min(length, g + c + d)));
  }
  Rank rank;
  rank.label = file_label(timeline);
  rank.steps = timeline.steps.size();
  rank.step_ns = median_of(step);
  rank.own_ns = median_of(own);
  std::vector<uint64_t> sorted_own(own.begin(), own.end());
  std::sort(sorted_own.begin(), sorted_own.end());
  rank.own_spread_ns = analysis::quantile(sorted_own, 0.75) - analysis::quantile(sorted_own, 0.25);
  rank.data_ns = median_of(data);
  rank.cpu_ns = median_of(cpu);
  rank.gpu_ns = median_of(gpu);
  rank.comm_ns = median_of(comm);
  ranks_.push_back(std::move(rank));
}

std::optional<Finding> StragglerTally::finish(const RuleContext& context) {
  if (ranks_.size() < 2) return std::nullopt;
  std::vector<double> spreads;
  for (const Rank& r : ranks_) spreads.push_back(r.own_spread_ns);
  const double noise = median_of(spreads);
  // Each rank against the median of the others.
  auto others = [&](size_t i, double Rank::*part) {
    std::vector<double> values;
    for (size_t k = 0; k < ranks_.size(); ++k)
      if (k != i) values.push_back(ranks_[k].*part);
    return median_of(values);
  };
  size_t worst = 0;
  double worst_excess = 0, worst_others = 0;
  std::vector<Place> slow;
  double slow_total = 0;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    const double base = others(i, &Rank::own_ns);
    const double excess = ranks_[i].own_ns - base;
    if (excess <= std::max(min_excess_ * base, noise)) continue;
    const double cost = excess * static_cast<double>(ranks_[i].steps);
    slow.push_back(Place{ranks_[i].label, static_cast<uint64_t>(cost), 0});
    slow_total += cost;
    if (slow.size() == 1 || excess > worst_excess) {
      worst = i;
      worst_excess = excess;
      worst_others = base;
    }
  }
  if (slow.empty()) return std::nullopt;
  const Rank& r = ranks_[worst];
  // What it spends more on than the others do.
  const Part* cause = &kParts[0];
  double cause_excess = -1;
  for (const Part& part : kParts) {
    const double more = r.*(part.ns) - others(worst, part.ns);
    if (more > cause_excess) {
      cause = &part;
      cause_excess = more;
    }
  }
  Finding f;
  f.rule = kId;
  // Every rank waits for it in each step.
  set_impact(f,
             static_cast<uint64_t>(worst_excess * static_cast<double>(r.steps) *
                                   static_cast<double>(ranks_.size())),
             context.window_ns);
  const double excess_share = worst_others > 0 ? worst_excess / worst_others : 0;
  f.evidence = {count_metric("ranks", "ranks with steps", static_cast<double>(ranks_.size())),
                count_metric("slow_ranks", "slow ranks", static_cast<double>(slow.size())),
                time_metric("step_time", "median step", r.step_ns),
                time_metric("own_time", "median step less exposed communication", r.own_ns),
                time_metric("others_own_time", "the other ranks' median of it", worst_others),
                time_metric("excess", "more per step", worst_excess),
                share_metric("excess_share", "more per step, share", excess_share),
                time_metric("noise", "the steps' spread (median interquartile range)", noise)};
  for (const Part& part : kParts) {
    f.evidence.push_back(time_metric(std::string(part.key), std::string(part.label), r.*(part.ns)));
    f.evidence.push_back(time_metric("others_" + std::string(part.key),
                                     "the other ranks' median of it", others(worst, part.ns)));
  }
  std::stable_sort(slow.begin(), slow.end(),
                   [](const Place& a, const Place& b) { return a.cost_ns > b.cost_ns; });
  for (Place& place : slow)
    place.share = slow_total > 0 ? static_cast<double>(place.cost_ns) / slow_total : 0;
  f.where.files = std::move(slow);
  f.where.step_pattern = context.files.empty() ? "" : context.files.front().step_pattern;
  for (const Timeline& timeline : context.files) f.where.steps += timeline.steps.size();
  f.where.steps_hit = r.steps;
  f.summary = fmt::format(
      "The slowest of {} ranks is {}: its median step less exposed communication takes {}, {} "
      "({}) more than the other ranks' median of {}, beyond the steps' spread of {}; the other "
      "ranks wait for it in their collectives. Most of the difference is {}: {} per step "
      "against {}.",
      ranks_.size(), r.label, time_text(r.own_ns), time_text(worst_excess),
      share_text(excess_share), time_text(worst_others), time_text(noise), cause->label,
      time_text(r.*(cause->ns)), time_text(others(worst, cause->ns)));
  f.suggestion = fmt::format("On {}, more time than on the others goes to {}. {}", r.label,
                             cause->label, cause->advice);
  return f;
}

const RuleSpec kStragglerRule{
    kId, "a rank whose steps take longer than the other ranks', and where its time went",
    kThresholds, run};

}  // namespace gprof::findings
