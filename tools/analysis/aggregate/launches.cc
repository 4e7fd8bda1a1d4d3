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

void LaunchesVisitor::on_file_end(uint32_t /*file*/, const FileInfo& /*info*/) {
  for (const Sample& sample : pending_)
    if (scope_->contains(sample.call)) add(sample);
  pending_.clear();
}

void LaunchesVisitor::add(const Sample& sample) {
  auto it = index_.find(sample.name);
  if (it == index_.end()) {
    it = index_.emplace(std::string(sample.name), keys_.size()).first;
    keys_.push_back(Samples{std::string(sample.name), {}, {}, {}});
  }
  Samples& samples = keys_[it->second];
  samples.api.push_back(sample.api);
  samples.queue.push_back(sample.queue);
  samples.gpu.push_back(sample.gpu);
}

void LaunchesVisitor::merge(LaunchesVisitor&& other) {
  for (Samples& from : other.keys_) {
    auto it = index_.find(from.name);
    if (it == index_.end()) {
      index_.emplace(from.name, keys_.size());
      keys_.push_back(std::move(from));
      continue;
    }
    Samples& to = keys_[it->second];
    to.api.insert(to.api.end(), from.api.begin(), from.api.end());
    to.queue.insert(to.queue.end(), from.queue.begin(), from.queue.end());
    to.gpu.insert(to.gpu.end(), from.gpu.begin(), from.gpu.end());
  }
  other.keys_.clear();
  other.index_.clear();
}

std::vector<LaunchRow> LaunchesVisitor::finish() {
  std::vector<LaunchRow> rows;
  rows.reserve(keys_.size());
  for (Samples& samples : keys_) {
    LaunchRow row;
    row.name = std::move(samples.name);
    row.count = samples.api.size();
    row.api = summarize(samples.api);
    row.queue = summarize(samples.queue);
    row.gpu = summarize(samples.gpu);
    rows.push_back(std::move(row));
  }
  keys_.clear();
  index_.clear();
  return rows;
}

}  // namespace gprof::analysis
