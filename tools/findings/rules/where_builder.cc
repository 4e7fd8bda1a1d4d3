#include "tools/findings/rules/where_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace gprof::findings {
namespace {

constexpr const char* kNoRange = "(no range)";

std::vector<Place> top_places(const std::map<std::string, uint64_t>& costs, size_t top) {
  uint64_t total = 0;
  std::vector<Place> places;
  for (const auto& [name, cost] : costs) {
    total += cost;
    places.push_back(Place{name, cost, 0});
  }
  std::stable_sort(places.begin(), places.end(),
                   [](const Place& a, const Place& b) { return a.cost_ns > b.cost_ns; });
  if (places.size() > top) places.resize(top);
  for (Place& place : places)
    place.share = total == 0 ? 0 : static_cast<double>(place.cost_ns) / static_cast<double>(total);
  return places;
}

std::string thread_label(const Timeline& timeline, uint32_t tid) {
  const std::string* name = timeline.thread_name(tid);
  return name ? fmt::format("{} ({})", tid, *name) : std::to_string(tid);
}

}  // namespace

int32_t step_at(const Timeline& timeline, uint64_t time_ns) {
  auto it = std::upper_bound(timeline.steps.begin(), timeline.steps.end(), time_ns,
                             [](uint64_t t, const Step& s) { return t < s.start_ns; });
  if (it == timeline.steps.begin()) return kNone;
  --it;
  return time_ns <= it->end_ns ? static_cast<int32_t>(it - timeline.steps.begin()) : kNone;
}

CallPlace place_of(const Timeline& timeline, const Call& call) {
  return CallPlace{call.range == kNone ? nullptr : &timeline.ranges[call.range].name, call.step,
                   call.tid};
}

void WhereBuilder::add_range(const std::string* range, uint64_t cost_ns) {
  ranges_[range == nullptr ? kNoRange : *range] += cost_ns;
}

void WhereBuilder::add_step(const Timeline& timeline, int32_t step) {
  if (step != kNone) steps_.emplace(timeline.file, step);
}

void WhereBuilder::add(const Timeline& timeline, const CallPlace* c, const Work* work,
                       uint64_t cost_ns) {
  // Every contribution counts, so that places of zero-length events rank by count.
  cost_ns = std::max<uint64_t>(cost_ns, 1);
  add_range(c ? c->range : nullptr, cost_ns);
  if (c) {
    add_step(timeline, c->step);
    threads_[thread_label(timeline, c->tid)] += cost_ns;
  } else if (work) {
    add_step(timeline, step_at(timeline, work->start_ns));
  }
  if (work) {
    streams_[fmt::format("{}", work->stream)] += cost_ns;
    devices_[fmt::format("{}", work->device)] += cost_ns;
    activities_[timeline.names[work->name]] += cost_ns;
  }
  files_[file_label(timeline)] += cost_ns;
}

void WhereBuilder::add_time(const Timeline& timeline, const std::string* range, uint32_t range_tid,
                            uint64_t time_ns, uint32_t device, uint64_t cost_ns) {
  cost_ns = std::max<uint64_t>(cost_ns, 1);
  add_range(range, cost_ns);
  add_step(timeline, step_at(timeline, time_ns));
  if (range != nullptr) threads_[thread_label(timeline, range_tid)] += cost_ns;
  devices_[fmt::format("{}", device)] += cost_ns;
  files_[file_label(timeline)] += cost_ns;
}

Where WhereBuilder::finish(const std::vector<Timeline>& timelines, size_t top) const {
  Where where;
  where.ranges = top_places(ranges_, top);
  where.threads = top_places(threads_, top);
  where.streams = top_places(streams_, top);
  where.devices = top_places(devices_, top);
  where.files = top_places(files_, top);
  where.activities = top_places(activities_, top);
  for (const Timeline& timeline : timelines) {
    where.steps += timeline.steps.size();
    if (where.step_pattern.empty()) where.step_pattern = timeline.step_pattern;
  }
  where.steps_hit = steps_.size();
  return where;
}

}  // namespace gprof::findings
