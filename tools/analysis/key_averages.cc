#include "tools/analysis/key_averages.h"

#include <algorithm>
#include <utility>

namespace gprof::analysis {

KeyAverages::Key KeyAverages::key(std::string_view name, RowKind kind) {
  auto it = keys_.find(name);
  if (it != keys_.end()) return it->second;
  const Key key = static_cast<Key>(rows_.size());
  Row row;
  row.name = std::string(name);
  row.kind = kind;
  rows_.push_back(std::move(row));
  keys_.emplace(std::string(name), key);
  return key;
}

void KeyAverages::add_cpu_event(uint64_t thread, uint64_t start_ns, uint64_t end_ns, Key key) {
  if (end_ns < start_ns) end_ns = start_ns;  // a clock step: treat as zero length
  threads_[thread].push_back(CpuEvent{start_ns, end_ns, key});
}

void KeyAverages::add_gpu_activity(Key key, uint64_t duration_ns) {
  Row& row = rows_[key];
  ++row.count;
  row.self_device_ns += duration_ns;
  row.device_total_ns += duration_ns;
}

void KeyAverages::add_device_time(Key key, uint64_t duration_ns) {
  Row& row = rows_[key];
  row.self_device_ns += duration_ns;
  row.device_total_ns += duration_ns;
}

void KeyAverages::resolve_thread(std::vector<CpuEvent>& events) {
  std::stable_sort(events.begin(), events.end(), [](const CpuEvent& a, const CpuEvent& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  struct Open {
    const CpuEvent* event;
    uint64_t children_ns;
  };
  std::vector<Open> stack;
  std::vector<uint32_t> open_per_key(rows_.size(), 0);  // enclosing events of each key

  auto close = [&](const Open& open) {
    const uint64_t duration = open.event->end_ns - open.event->start_ns;
    rows_[open.event->key].self_cpu_ns +=
        open.children_ns < duration ? duration - open.children_ns : 0;
    --open_per_key[open.event->key];
  };

  for (const CpuEvent& event : events) {
    // Pop what cannot enclose `event`: it ended before `event` starts, or it
    // ends before `event` does (a partial overlap is not nesting).
    while (!stack.empty()) {
      const CpuEvent& parent = *stack.back().event;
      if (event.start_ns >= parent.end_ns || event.end_ns > parent.end_ns) {
        close(stack.back());
        stack.pop_back();
      } else {
        break;
      }
    }
    const uint64_t duration = event.end_ns - event.start_ns;
    if (!stack.empty()) stack.back().children_ns += duration;
    Row& row = rows_[event.key];
    ++row.count;
    if (open_per_key[event.key] == 0) row.cpu_total_ns += duration;
    ++open_per_key[event.key];
    stack.push_back(Open{&event, 0});
  }
  while (!stack.empty()) {
    close(stack.back());
    stack.pop_back();
  }
}

std::vector<Row> KeyAverages::finish() {
  for (auto& [thread, events] : threads_) resolve_thread(events);
  threads_.clear();
  keys_.clear();
  return std::exchange(rows_, {});
}

}  // namespace gprof::analysis
