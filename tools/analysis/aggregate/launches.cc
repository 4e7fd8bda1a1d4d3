#include "tools/analysis/aggregate/launches.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace gprof::analysis {
namespace {

int64_t signed_difference(uint64_t later, uint64_t earlier) {
  return later >= earlier ? static_cast<int64_t>(later - earlier)
                          : -static_cast<int64_t>(earlier - later);
}

}  // namespace

Summary summarize(std::vector<int64_t>& samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  // In double: a sum of many nanosecond samples can overflow int64.
  const double sum = std::accumulate(samples.begin(), samples.end(), 0.0, [](double a, int64_t b) {
    return a + static_cast<double>(b);
  });
  s.avg = sum / static_cast<double>(n);
  s.median =
      n % 2 == 1
          ? static_cast<double>(samples[n / 2])
          : (static_cast<double>(samples[n / 2 - 1]) + static_cast<double>(samples[n / 2])) / 2.0;
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

void LaunchesVisitor::on_launch(const Launch& launch) {
  const std::string_view name =
      launch.work.size() == 1 ? std::string_view(*launch.work.front()->name) : launch.info.display;
  const CallRef& call = launch.call;
  const uint64_t first_start = launch.work.front()->record->start_ns;
  uint64_t last_end = first_start;
  for (const GpuActivity* work : launch.work) last_end = std::max(last_end, work->record->end_ns);
  const Sample sample{
      call.index, name,
      call.end_ns > call.start_ns ? signed_difference(call.end_ns, call.start_ns) : 0,
      signed_difference(first_start, call.end_ns), signed_difference(last_end, first_start)};
  if (scope_ == nullptr || !scope_->filters())
    add(sample);
  else
    pending_.push_back(sample);
}

void LaunchesVisitor::add_launch(std::string_view name, uint64_t call_start, uint64_t call_end,
                                 uint64_t first_start, uint64_t last_end) {
  add(Sample{0, name, call_end > call_start ? signed_difference(call_end, call_start) : 0,
             signed_difference(first_start, call_end), signed_difference(last_end, first_start)});
}

void LaunchesVisitor::on_file_end(uint32_t /*file*/, const FileInfo& /*info*/) {
  for (const Sample& sample : pending_)
    if (scope_->contains(sample.call)) add(sample);
  pending_.clear();
}

uint32_t LaunchesVisitor::key_of(std::string_view name) {
  auto it = index_.find(name);
  if (it == index_.end()) {
    it = index_.emplace(std::string(name), static_cast<uint32_t>(keys_.size())).first;
    keys_.push_back(Key{std::string(name), 0});
  }
  return it->second;
}

void LaunchesVisitor::add(const Sample& sample) {
  const uint32_t key = key_of(sample.name);
  ++keys_[key].count;
  values_.add(Value{sample.api, key, 0});
  values_.add(Value{sample.queue, key, 1});
  values_.add(Value{sample.gpu, key, 2});
}

void LaunchesVisitor::merge(LaunchesVisitor&& other) {
  if (keys_.empty() && pending_.empty()) {
    // The first file's keys are the same numbers here: its samples are
    // taken as they are, not sorted a second time (a third of the view).
    keys_ = std::move(other.keys_);
    index_ = std::move(other.index_);
    values_ = std::move(other.values_);
    other = LaunchesVisitor(other.scope_);
    return;
  }
  std::vector<uint32_t> to(other.keys_.size());
  for (size_t i = 0; i < other.keys_.size(); ++i) {
    to[i] = key_of(other.keys_[i].name);
    keys_[to[i]].count += other.keys_[i].count;
  }
  auto values = other.values_.sorted();
  for (Value v; values.next(v);) values_.add(Value{v.ns, to[v.key], v.metric});
  other = LaunchesVisitor(other.scope_);
}

// summarize()'s figures off the sorted values: the same sum in the same
// (ascending) order, so the same doubles.
std::vector<LaunchRow> LaunchesVisitor::finish() {
  std::vector<LaunchRow> rows(keys_.size());
  for (size_t k = 0; k < keys_.size(); ++k) {
    rows[k].name = std::move(keys_[k].name);
    rows[k].count = keys_[k].count;
  }
  auto values = values_.sorted();
  Value v{};
  bool has = values.next(v);
  while (has) {
    const uint32_t key = v.key, metric = v.metric;
    const uint64_t n = rows[key].count;
    Summary& s = metric == 0 ? rows[key].api : metric == 1 ? rows[key].queue : rows[key].gpu;
    s.min = v.ns;
    double sum = 0;
    double low = 0, high = 0;
    for (uint64_t i = 0; has && v.key == key && v.metric == metric; ++i, has = values.next(v)) {
      sum += static_cast<double>(v.ns);
      if (i == (n - 1) / 2) low = static_cast<double>(v.ns);
      if (i == n / 2) high = static_cast<double>(v.ns);
      s.max = v.ns;
    }
    s.avg = sum / static_cast<double>(n);
    s.median = n % 2 == 1 ? high : (low + high) / 2.0;
  }
  keys_.clear();
  index_.clear();
  values_ = analysis::SpillSorter<Value, ByKeyValue>(kBudget);
  return rows;
}

}  // namespace gprof::analysis
