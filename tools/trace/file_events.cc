#include "tools/trace/file_events.h"

#include "tools/analysis/demangle.h"
#include "tools/analysis/gpu_names.h"

namespace gprof::trace {

void FileEvents::on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {
  events.clear();
  tracks.clear();
  calls.clear();
  gpu.clear();
  ranges.clear();
  counters.clear();
  strings = std::make_unique<analysis::Interner>();
  track_index_.clear();
  kernels_.clear();
  domains_.clear();
}

void FileEvents::on_string(uint32_t /*file*/, const pb::StringEntry& entry) {
  if (entry.kind() == pb::StringEntry::DOMAIN) domains_[entry.id()] = strings->id(entry.value());
}

uint32_t FileEvents::track(bool gpu_track, uint32_t device, uint32_t tid) {
  const uint64_t key = uint64_t{gpu_track} << 63 | uint64_t{device} << 32 | tid;
  auto [it, added] = track_index_.emplace(key, static_cast<uint32_t>(tracks.size()));
  if (added) tracks.push_back(Track{gpu_track, device, tid});
  return it->second;
}

uint32_t FileEvents::demangled(const std::string* kernel) {
  if (kernel == nullptr) return kNoIndex;
  auto it = kernels_.find(kernel);
  if (it == kernels_.end())
    it = kernels_.emplace(kernel, strings->id(analysis::demangle(*kernel))).first;
  return it->second;
}

void FileEvents::on_api(const analysis::ApiCall& call) {
  const ApiRecord& r = call.record;
  CallDetails d{};
  d.correlation = r.correlation;
  d.stream = r.stream;
  d.bytes = r.bytes;
  d.grid = r.grid;
  d.block = r.block;
  d.shared_mem = r.shared_mem;
  d.kernel = call.info.fields & kFieldLaunch ? demangled(call.kernel) : kNoIndex;
  d.first_gpu = kNoIndex;
  d.result = r.result;
  d.api = r.api;
  d.keep = true;
  // Calls come numbered in order (profile.h), so event i is call i until
  // the events are sorted.
  if (calls.size() <= call.index) calls.resize(size_t{call.index} + 1);
  calls[call.index] = d;
  const uint64_t dur = r.end_ns > r.start_ns ? r.end_ns - r.start_ns : 0;
  events.push_back(Event{r.start_ns, dur, track(false, 0, r.tid), call.index, EventKind::kCall});
  ledger_.add(r, call.index);
}

void FileEvents::on_range(const analysis::RangeSpan& span) {
  const analysis::Range& r = span.range;
  auto domain = domains_.find(r.domain);
  const auto ref = static_cast<uint32_t>(ranges.size());
  ranges.push_back(
      RangeDetails{strings->id(span.name),
                   domain == domains_.end() ? analysis::Interner::kEmpty : domain->second, r.kind,
                   r.open_at_exit, true});
  const uint32_t where = track(false, 0, r.tid);
  const uint64_t dur = r.end_ns - r.start_ns;
  switch (r.kind) {
    case analysis::RangeKind::kPushPop:
      events.push_back(Event{r.start_ns, dur, where, ref, EventKind::kRange});
      break;
    case analysis::RangeKind::kStartEnd:
      events.push_back(Event{r.start_ns, dur, where, ref, EventKind::kAsyncBegin});
      events.push_back(Event{r.end_ns, dur, where, ref, EventKind::kAsyncEnd});
      break;
    case analysis::RangeKind::kMark:
      events.push_back(Event{r.start_ns, 0, where, ref, EventKind::kMark});
      break;
  }
}

void FileEvents::add_gpu(const analysis::GpuActivity& activity, uint32_t call) {
  const GpuRecord& r = *activity.record;
  events.push_back(Event{r.start_ns, activity.duration_ns(), track(true, r.device, r.stream),
                         static_cast<uint32_t>(gpu.size()), EventKind::kGpu});
  gpu.push_back(GpuDetails{activity.record, activity.name, call, true});
}

void FileEvents::on_gpu(const analysis::GpuActivity& activity) {
  // Paired work comes with its call in on_launch, so that a call's work
  // items are neighbours in `gpu`.
  if (activity.is_work() && activity.call == nullptr) add_gpu(activity, kNoIndex);
}

void FileEvents::on_launch(const analysis::Launch& launch) {
  const uint32_t index = launch.call.index;
  if (index >= calls.size()) return;
  calls[index].first_gpu = static_cast<uint32_t>(gpu.size());
  calls[index].gpu_count = static_cast<uint32_t>(launch.work.size());
  for (const analysis::GpuActivity* activity : launch.work) add_gpu(*activity, index);
}

void FileEvents::add_counter(uint32_t where, uint64_t time_ns, Counter counter, double value,
                             uint32_t call) {
  events.push_back(
      Event{time_ns, 0, where, static_cast<uint32_t>(counters.size()), EventKind::kCounter});
  counters.push_back(CounterSample{value, call, counter});
}

void FileEvents::add_memory_counters() {
  if (ledger_.empty()) return;
  const uint32_t where = track(false, 0, 0);
  int64_t in_use[2] = {0, 0};
  for (const analysis::MemoryDelta& d : ledger_.resolve()) {
    const bool device = d.space == analysis::MemorySpace::kDevice;
    int64_t& level = in_use[device ? 0 : 1];
    level += d.bytes;
    add_counter(where, events[d.call].start_ns,
                device ? Counter::kDeviceMemory : Counter::kHostMemory, static_cast<double>(level),
                d.call);
  }
}

}  // namespace gprof::trace
