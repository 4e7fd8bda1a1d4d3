#include "tools/findings/timeline/timeline_builder.h"

#include <algorithm>
#include <map>

#include "tools/analysis/model/glob.h"
#include "tools/analysis/model/steps.h"

namespace gprof::findings {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

using Windows = std::vector<std::pair<uint64_t, uint64_t>>;

}  // namespace

std::vector<std::string> default_data_patterns() {
  return {"*DataLoader*", "*dataloader*", "*data_loader*", "*data_loading*", "*load_batch*"};
}

TimelineBuilder::TimelineBuilder(Scope scope) : scope_(std::move(scope)) {
  if (scope_.steps.empty()) scope_.steps = analysis::default_step_patterns();
  if (scope_.data.empty()) scope_.data = default_data_patterns();
}

void TimelineBuilder::on_file_begin(uint32_t /*file*/, const std::string& path) {
  // Numbered across calls of load_files (diff reads a side run by run).
  timelines_.emplace_back();
  current().file = static_cast<uint32_t>(timelines_.size() - 1);
  current().path = path;
  name_ids_.clear();
}

void TimelineBuilder::on_header(uint32_t /*file*/, const pb::FileHeader& header) {
  current().pid = header.pid();
  current().rank = header.rank();
}

void TimelineBuilder::on_api(const analysis::ApiCall& api) {
  std::vector<Call>& calls = current().calls;
  if (calls.size() <= api.index) calls.resize(api.index + 1);
  Call& call = calls[api.index];
  const ApiRecord& r = api.record;
  call.start_ns = r.start_ns;
  call.end_ns = r.end_ns;
  call.stream = r.stream;
  call.bytes = r.bytes;
  call.tid = r.tid;
  call.api = r.api;
  call.category = api.info.category;
  call.copy_kind = r.copy_kind;
  call.async = api.info.category == ApiCategory::kLaunch || ends_with(api.info.display, "Async");
}

void TimelineBuilder::on_range(const analysis::RangeSpan& span) {
  if (span.range.kind == analysis::RangeKind::kMark) return;
  current().ranges.push_back(
      Span{span.name, span.range.start_ns, span.range.end_ns, span.range.tid, span.range.kind});
}

void TimelineBuilder::on_gpu(const analysis::GpuActivity& activity) {
  if (!activity.is_work()) return;
  const GpuRecord& r = *activity.record;
  Timeline& timeline = current();
  const auto [it, added] =
      name_ids_.try_emplace(*activity.name, static_cast<uint32_t>(timeline.names.size()));
  if (added) timeline.names.push_back(*activity.name);
  Work w;
  w.start_ns = r.start_ns;
  w.end_ns = r.end_ns;
  w.bytes = r.bytes;
  w.device = r.device;
  w.stream = r.stream;
  w.call = activity.call ? static_cast<int32_t>(activity.call->index) : kNone;
  w.name = it->second;
  w.kind = r.kind;
  w.copy_kind = r.copy_kind;
  w.src_kind = r.src_kind;
  w.dst_kind = r.dst_kind;
  timeline.work.push_back(w);
}

void TimelineBuilder::on_file_end(uint32_t /*file*/, const analysis::FileInfo& info) {
  Timeline& timeline = current();
  for (const auto& [tid, name] : info.thread_names) timeline.thread_names.emplace_back(tid, name);
  std::stable_sort(timeline.work.begin(), timeline.work.end(),
                   [](const Work& a, const Work& b) { return a.start_ns < b.start_ns; });
  for (const Work& w : timeline.work)
    if (w.call != kNone && static_cast<size_t>(w.call) < timeline.calls.size())
      ++timeline.calls[w.call].work;
  find_steps(timeline);
  place_calls(timeline);
  set_windows(timeline);
  find_data_loading(timeline);
}

// A thread's ranges by start (an outer range before an inner one that starts
// with it) and its calls by start, swept together: the ranges still open at a
// call are its enclosing ones, the last opened its innermost.
void TimelineBuilder::place_calls(Timeline& timeline) const {
  std::map<uint32_t, std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> threads;
  for (uint32_t i = 0; i < timeline.ranges.size(); ++i)
    threads[timeline.ranges[i].tid].first.push_back(i);
  for (uint32_t i = 0; i < timeline.calls.size(); ++i)
    threads[timeline.calls[i].tid].second.push_back(i);
  std::vector<bool> matches(timeline.ranges.size(), false);
  for (uint32_t i = 0; i < timeline.ranges.size(); ++i)
    matches[i] = analysis::glob_match_any(scope_.ranges, timeline.ranges[i].name);
  const bool filtered = !scope_.ranges.empty();

  for (auto& [tid, lists] : threads) {
    auto& [ranges, calls] = lists;
    // Stable: of ranges over the same interval, the one opened first is
    // the outer one, as the stream (streamed_analysis.h) has it too.
    std::stable_sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
      const Span& x = timeline.ranges[a];
      const Span& y = timeline.ranges[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
    });
    std::stable_sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
      return timeline.calls[a].start_ns < timeline.calls[b].start_ns;
    });
    std::vector<uint32_t> open;
    size_t next = 0;
    for (uint32_t index : calls) {
      Call& call = timeline.calls[index];
      while (next < ranges.size() && timeline.ranges[ranges[next]].start_ns <= call.start_ns)
        open.push_back(ranges[next++]);
      std::erase_if(open, [&](uint32_t r) { return timeline.ranges[r].end_ns < call.start_ns; });
      call.range = open.empty() ? kNone : static_cast<int32_t>(open.back());
      if (filtered)
        call.in_scope =
            std::any_of(open.begin(), open.end(), [&](uint32_t r) { return matches[r]; });
    }
  }
  // Steps by time, whatever the thread: a data-loader thread's calls belong
  // to the step the main thread is in.
  for (Call& call : timeline.calls) {
    auto it = std::upper_bound(timeline.steps.begin(), timeline.steps.end(), call.start_ns,
                               [](uint64_t t, const Step& s) { return t < s.start_ns; });
    if (it == timeline.steps.begin()) continue;
    --it;
    if (call.start_ns <= it->end_ns) call.step = static_cast<int32_t>(it - timeline.steps.begin());
  }
}

// The ranges of the first pattern that matches any, less those inside an
// earlier one (as steps.h picks them).
void TimelineBuilder::find_steps(Timeline& timeline) const {
  for (const std::string& pattern : scope_.steps) {
    std::vector<Step> steps;
    for (uint32_t i = 0; i < timeline.ranges.size(); ++i) {
      const Span& span = timeline.ranges[i];
      if (analysis::glob_match(pattern, span.name))
        steps.push_back(Step{span.start_ns, span.end_ns, static_cast<int32_t>(i)});
    }
    if (steps.empty()) continue;
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
    for (const Step& step : steps)
      if (timeline.steps.empty() || step.start_ns >= timeline.steps.back().end_ns)
        timeline.steps.push_back(step);
    timeline.step_pattern = pattern;
    return;
  }
}

void TimelineBuilder::set_windows(Timeline& timeline) const {
  Windows windows;
  if (!scope_.ranges.empty()) {
    for (const Span& span : timeline.ranges)
      if (analysis::glob_match_any(scope_.ranges, span.name))
        windows.emplace_back(span.start_ns, span.end_ns);
    timeline.windows = merged_windows(std::move(windows));
    timeline.ranged = true;
    return;
  }
  uint64_t begin = UINT64_MAX, end = 0, work_begin = UINT64_MAX;
  for (const Call& call : timeline.calls) {
    if (call.api == ApiId::kUnknown) continue;  // an index the file never handed out
    begin = std::min(begin, call.start_ns);
    end = std::max(end, call.end_ns);
    if (issues_work(call.category)) work_begin = std::min(work_begin, call.start_ns);
  }
  for (const Work& w : timeline.work) {
    begin = std::min(begin, w.start_ns);
    end = std::max(end, w.end_ns);
    work_begin = std::min(work_begin, w.start_ns);
  }
  begin = window_begin(begin, work_begin);
  if (begin < end) timeline.windows = {{begin, end}};
}

void TimelineBuilder::find_data_loading(Timeline& timeline) const {
  Windows loading;
  for (const Span& span : timeline.ranges)
    if (analysis::glob_match_any(scope_.data, span.name))
      loading.emplace_back(span.start_ns, span.end_ns);
  timeline.data_loading = merged_windows(std::move(loading));
}

}  // namespace gprof::findings
