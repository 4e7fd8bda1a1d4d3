#include "tools/findings/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/render/format.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/stream/streamed_file.h"

namespace gprof::findings {

Loaded load_timelines(const std::vector<std::string>& paths, const Scope& scope) {
  TimelineBuilder builder(scope);
  Loaded out;
  out.infos = analysis::load_files(paths, builder);
  out.timelines = builder.take();
  return out;
}

namespace {

std::vector<const RuleSpec*> every_rule() {
  const std::span<const RuleSpec* const> rules = all_rules();
  return {rules.begin(), rules.end()};
}

// One file of a streamed analysis, read and prepared on a worker thread
// (streamed_file.h), fed to the tallies on the calling thread in file order.
// A file the stream declines is read in memory on the worker instead
// (visitor()), and fed as the rules' run() would add it.
class AnalyzeWork final : public analysis::FileWork {
 public:
  AnalyzeWork(const Scope& scope, const GpuIdleTally& rules)
      : scope_(scope), rules_(rules), builder_(scope) {}

  analysis::ProfileVisitor& visitor() override { return builder_; }
  std::optional<analysis::FileInfo> read(uint32_t file, const std::string& path) override {
    prepared_ = stream::prepare_file(file, path, scope_, rules_, timeline_, info_, why_);
    if (prepared_) return info_;
    // The progress display counts the file once, as read again now.
    retract_read_progress(info_.status);
    return std::nullopt;
  }

  // The tallies get the file; `timeline` what a streamed file's keeps
  // (streamed_file.h): no records. `why`: why it was read in memory, if it was.
  void feed(uint32_t file, const Thresholds& thresholds, stream::Tallies& tallies,
            Timeline& timeline, std::string& why) {
    if (prepared_) {
      prepared_->feed(tallies);
      prepared_.reset();
      timeline = std::move(timeline_);
      return;
    }
    why = why_;
    timeline = std::move(builder_.take().front());
    timeline.file = file;
    find_setup(timeline, thresholds);
    tallies.add_timeline(timeline);
    std::vector<Call>().swap(timeline.calls);
    std::vector<Span>().swap(timeline.ranges);
    std::vector<Work>().swap(timeline.work);
  }

 private:
  const Scope& scope_;
  const GpuIdleTally& rules_;
  TimelineBuilder builder_;
  Timeline timeline_;
  analysis::FileInfo info_;
  std::string why_;
  std::unique_ptr<stream::PreparedFile> prepared_;
};

}  // namespace

unsigned analyze_jobs(unsigned jobs) {
  return jobs != 0 ? jobs : std::min(analysis::default_jobs(), kDefaultAnalyzeJobs);
}

AnalyzedFiles analyze_files(const std::vector<std::string>& paths,
                            std::vector<const RuleSpec*> rules, Thresholds thresholds,
                            const Scope& scope, unsigned jobs) {
  AnalyzedFiles out;
  if (!analysis::in_memory_asked()) {
    stream::Tallies tallies(thresholds);
    std::vector<Timeline> timelines(paths.size());
    out.infos = analysis::load_files_parallel(
        paths, analyze_jobs(jobs),
        [&](uint32_t) { return std::make_unique<AnalyzeWork>(scope, tallies.gpu_idle); },
        [&](uint32_t file, analysis::FileWork& work, const analysis::FileInfo&) {
          std::string why;
          static_cast<AnalyzeWork&>(work).feed(file, thresholds, tallies, timelines[file], why);
          if (!why.empty()) out.in_memory.emplace_back(paths[file], why);
        });
    for (const Timeline& timeline : timelines)
      out.range_matched = out.range_matched || !timeline.windows.empty();
    out.analysis = analyze(std::move(timelines), std::move(rules), std::move(thresholds),
                           scope.ranges, [&](const RuleSpec& rule, const RuleContext& context) {
                             return tallies.finish(rule.id, context);
                           });
    return out;
  }
  Loaded loaded = load_timelines(paths, scope);
  out.infos = std::move(loaded.infos);
  for (const Timeline& timeline : loaded.timelines)
    out.range_matched = out.range_matched || !timeline.windows.empty();
  out.analysis =
      analyze(std::move(loaded.timelines), std::move(rules), std::move(thresholds), scope.ranges);
  return out;
}

AnalyzedFiles analyze_files_with_defaults(const std::vector<std::string>& paths, const Scope& scope,
                                          unsigned jobs) {
  return analyze_files(paths, every_rule(), Thresholds{}, scope, jobs);
}

std::string brief_text(const Finding& finding) {
  std::string out =
      fmt::format("[{}] {}: {}, {} of the window", severity_name(finding.severity), finding.rule,
                  time_text(finding.impact_ns), share_text(finding.impact_share));
  if (!finding.where.ranges.empty()) {
    const Place& top = finding.where.ranges.front();
    out += fmt::format(", in '{}' ({})", analysis::single_line(top.name), share_text(top.share));
  }
  return out;
}

}  // namespace gprof::findings
