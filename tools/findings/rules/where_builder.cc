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

// A range's name lives as long as its file's timeline: its address and the
// file name it.
void WhereBuilder::add_range(const Timeline& timeline, const std::string* range, uint64_t cost_ns) {
  cost_of(ranges_, last_range_, timeline.file, reinterpret_cast<uintptr_t>(range),
          [&] { return range == nullptr ? std::string(kNoRange) : *range; }) += cost_ns;
}

void WhereBuilder::add_step(const Timeline& timeline, int32_t step) {
  if (step == kNone) return;
  const std::pair<uint32_t, int32_t> key{timeline.file, step};
  if (key == last_step_) return;
  last_step_ = key;
  steps_.insert(key);
}

void WhereBuilder::add(const Timeline& timeline, const CallPlace* c, const Work* work,
                       uint64_t cost_ns) {
  // Every contribution counts, so that places of zero-length events rank by count.
  cost_ns = std::max<uint64_t>(cost_ns, 1);
  add_range(timeline, c ? c->range : nullptr, cost_ns);
  if (c) {
    add_step(timeline, c->step);
    cost_of(threads_, last_thread_, timeline.file, c->tid,
            [&] { return thread_label(timeline, c->tid); }) += cost_ns;
  } else if (work) {
    add_step(timeline, step_at(timeline, work->start_ns));
  }
  if (work) {
    cost_of(streams_, last_stream_, work->stream, 0,
            [&] { return fmt::format("{}", work->stream); }) += cost_ns;
    cost_of(devices_, last_device_, work->device, 0,
            [&] { return fmt::format("{}", work->device); }) += cost_ns;
    cost_of(activities_, last_activity_, timeline.file, work->name,
            [&] { return timeline.names[work->name]; }) += cost_ns;
  }
  cost_of(files_, last_file_, timeline.file, 0, [&] { return file_label(timeline); }) += cost_ns;
}

void WhereBuilder::add_time(const Timeline& timeline, const std::string* range, uint32_t range_tid,
                            uint64_t time_ns, uint32_t device, uint64_t cost_ns) {
  cost_ns = std::max<uint64_t>(cost_ns, 1);
  add_range(timeline, range, cost_ns);
  add_step(timeline, step_at(timeline, time_ns));
  if (range != nullptr)
    cost_of(threads_, last_thread_, timeline.file, range_tid,
            [&] { return thread_label(timeline, range_tid); }) += cost_ns;
  cost_of(devices_, last_device_, device, 0, [&] { return fmt::format("{}", device); }) += cost_ns;
  cost_of(files_, last_file_, timeline.file, 0, [&] { return file_label(timeline); }) += cost_ns;
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
