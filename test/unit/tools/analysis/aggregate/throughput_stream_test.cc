// The streaming throughput lines (throughput_stream.h) against
// ThroughputVisitor fed the same records: every field, for every arrival
// order, with and without steps, with memory bounds that spill.
#include "tools/analysis/aggregate/throughput_stream.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"
#include "test/unit/tools/analysis/aggregate/interval_orders.h"
#include "tools/analysis/aggregate/throughput.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

struct Work {
  uint32_t device;
  Interval interval;
  GpuKind kind;  // kSync: a GPU sync record, which is not work
};

struct NamedRange {
  std::string name;
  Interval interval;
  RangeKind kind;
};

// One file's records, in the order they arrive.
struct FileRecords {
  uint32_t pid = 0;
  std::vector<Interval> syncs;
  std::vector<Interval> other_calls;  // launches: no part of the lines
  std::vector<Work> work;
  std::vector<NamedRange> ranges;
  uint64_t first_ns = 0;
  uint64_t last_ns = 0;
};

enum class Steps { kNone, kProfilerSteps, kLoopSteps, kLateSteps };

FileRecords random_file(std::mt19937_64& rng, Order order, Steps steps, size_t work_count) {
  FileRecords f;
  f.pid = static_cast<uint32_t>(rng() % 100000);
  const std::vector<uint32_t> devices = {0, 3, 1};
  const size_t device_count = 1 + rng() % devices.size();
  const uint64_t origin = 1'000'000 + rng() % 1000;
  for (size_t d = 0; d < device_count; ++d) {
    std::vector<Interval> intervals =
        random_work(rng, work_count / device_count, 1 + static_cast<int>(rng() % 4), origin);
    for (const Interval& i : intervals) f.work.push_back({devices[d], i, GpuKind::kKernel});
  }
  for (size_t i = 0; i < f.work.size(); i += 97) f.work[i].kind = GpuKind::kMemcpy;
  for (size_t i = 0; i < 20; ++i) {  // GPU sync records: not work
    const uint64_t t = origin + rng() % 100000;
    f.work.push_back({devices[0], {t, t + 1000}, GpuKind::kSync});
  }
  f.syncs = random_work(rng, work_count / 4, 1 + static_cast<int>(rng() % 4), origin);
  f.other_calls = random_work(rng, 50, 2, origin);

  uint64_t high = origin;
  for (const Work& w : f.work) high = std::max(high, w.interval.second);
  // Steps start after a lot of work and end before the last of it.
  const uint64_t span = high - origin;
  const uint64_t first_step = origin + span / 4 + rng() % 1000;
  const uint64_t step_length = std::max<uint64_t>(span / 10, 1);
  const auto add_steps = [&](const std::string& prefix, uint64_t from, int count) {
    for (int i = 0; i < count; ++i) {
      const uint64_t start = from + static_cast<uint64_t>(i) * step_length + rng() % 50;
      f.ranges.push_back({prefix + std::to_string(i + 1),
                          {start, start + step_length - rng() % 100},
                          RangeKind::kPushPop});
    }
  };
  switch (steps) {
    case Steps::kNone:
      break;
    case Steps::kProfilerSteps:
      add_steps("ProfilerStep#", first_step, 4);
      // Nested in a step: part of it. A "step" range: the first pattern won.
      f.ranges.push_back(
          {"ProfilerStep#2", {first_step + 10, first_step + 20}, RangeKind::kPushPop});
      f.ranges.push_back({"step_optimizer", {origin, high + 5000}, RangeKind::kStartEnd});
      break;
    case Steps::kLoopSteps:
      add_steps("step ", first_step, 3);
      break;
    case Steps::kLateSteps:
      // Only at the very end, after nearly all the work.
      add_steps("ProfilerStep#", high - step_length / 2, 2);
      break;
  }
  f.ranges.push_back({"forward", {origin + 5, origin + 500}, RangeKind::kPushPop});
  f.ranges.push_back({"ProfilerStep#99", {origin, high}, RangeKind::kMark});  // marks are no steps

  f.first_ns = UINT64_MAX;
  f.last_ns = 0;
  const auto extend = [&](const Interval& i) {
    f.first_ns = std::min(f.first_ns, i.first);
    f.last_ns = std::max(f.last_ns, i.second);
  };
  for (const Work& w : f.work) extend(w.interval);
  for (const Interval& i : f.syncs) extend(i);
  for (const Interval& i : f.other_calls) extend(i);
  for (const NamedRange& r : f.ranges) extend(r.interval);

  // Arrival: the work in the order under test (all devices interleaved), syncs too.
  std::vector<Interval> keyed(f.work.size());
  for (size_t i = 0; i < f.work.size(); ++i) keyed[i] = {f.work[i].interval.first, i};
  // (start, index): long ones last is done below, on the work itself.
  arrange(keyed, order == Order::kLateLong ? Order::kSorted : order, rng);
  std::vector<Work> arranged;
  for (const Interval& k : keyed) arranged.push_back(f.work[k.second]);
  if (order == Order::kLateLong) {
    std::stable_partition(arranged.begin(), arranged.end(), [](const Work& w) {
      return w.interval.second <= w.interval.first || w.interval.second - w.interval.first < 20000;
    });
  }
  f.work = std::move(arranged);
  arrange(f.syncs, order, rng);
  std::shuffle(f.ranges.begin(), f.ranges.end(), rng);
  return f;
}

FileThroughput through_visitor(const FileRecords& f, uint32_t file) {
  ThroughputVisitor visitor;
  visitor.on_file_begin(file, "run.gprof");
  pb::FileHeader header;
  header.set_pid(f.pid);
  visitor.on_header(file, header);
  const ApiInfo sync{ApiId::kUnknown,
                     "cudaDeviceSynchronize",
                     "cudaDeviceSynchronize",
                     ApiCategory::kSync,
                     0,
                     false};
  const ApiInfo launch{
      ApiId::kUnknown, "cudaLaunchKernel", "cudaLaunchKernel", ApiCategory::kLaunch, 0, false};
  uint32_t index = 0;
  for (const Interval& i : f.syncs) {
    ApiRecord record{};
    record.start_ns = i.first;
    record.end_ns = i.second;
    visitor.on_api(ApiCall{file, record, sync, nullptr, index++});
  }
  for (const Interval& i : f.other_calls) {
    ApiRecord record{};
    record.start_ns = i.first;
    record.end_ns = i.second;
    visitor.on_api(ApiCall{file, record, launch, nullptr, index++});
  }
  const std::string empty;
  for (const NamedRange& r : f.ranges) {
    Range range;
    range.start_ns = r.interval.first;
    range.end_ns = r.interval.second;
    range.kind = r.kind;
    visitor.on_range(RangeSpan{file, range, r.name, empty});
  }
  const std::string name = "k";
  for (const Work& w : f.work) {
    GpuRecord record{};
    record.start_ns = w.interval.first;
    record.end_ns = w.interval.second;
    record.device = w.device;
    record.kind = w.kind;
    visitor.on_gpu(GpuActivity{file, &record, &name, nullptr, nullptr});
  }
  FileInfo info;
  info.first_ns = f.first_ns;
  info.last_ns = f.last_ns;
  visitor.on_file_end(file, info);
  return visitor.files().at(0);
}

// As the contract says: syncs, work (not GPU sync records), ranges but marks.
FileThroughput through_stream(const FileRecords& f, uint32_t file, ThroughputStream& stream) {
  for (const Interval& i : f.syncs) stream.sync_call(i.first, i.second);
  for (const Work& w : f.work)
    if (w.kind != GpuKind::kSync) stream.work(w.device, w.interval.first, w.interval.second);
  for (const NamedRange& r : f.ranges)
    if (r.kind != RangeKind::kMark) stream.range(r.name, r.interval.first, r.interval.second);
  return stream.finish(file, f.pid, f.first_ns, f.last_ns);
}

void check_same(const FileThroughput& got, const FileThroughput& want) {
  CHECK(got.file == want.file);
  CHECK(got.pid == want.pid);
  REQUIRE(got.steps.has_value() == want.steps.has_value());
  if (want.steps) {
    CHECK(got.steps->pattern == want.steps->pattern);
    CHECK(got.steps->count == want.steps->count);
    CHECK(got.steps->first_start_ns == want.steps->first_start_ns);
    CHECK(got.steps->last_end_ns == want.steps->last_end_ns);
    CHECK(got.steps->min_ns == want.steps->min_ns);
    CHECK(got.steps->max_ns == want.steps->max_ns);
    CHECK(got.steps->median_ns == want.steps->median_ns);
    CHECK(got.steps->p95_ns == want.steps->p95_ns);
  }
  CHECK(got.window_begin_ns == want.window_begin_ns);
  CHECK(got.window_end_ns == want.window_end_ns);
  REQUIRE(got.devices.size() == want.devices.size());
  for (size_t i = 0; i < want.devices.size(); ++i) {
    CHECK(got.devices[i].device == want.devices[i].device);
    CHECK(got.devices[i].busy_ns == want.devices[i].busy_ns);
  }
  CHECK(got.sync_ns == want.sync_ns);
  CHECK(got.sync_calls == want.sync_calls);
}

SpillLimits tiny_limits() {
  SpillLimits limits;
  limits.memory_intervals = 16;
  limits.chunk_intervals = 4;
  limits.max_chunks = 8;
  limits.block_intervals = 5;
  limits.runs_per_level = 2;
  return limits;
}

TEST_CASE(
    "throughput stream: the visitor's lines for any arrival order, steps or none, spilled or not",
    "[throughput_stream]") {
  const std::vector<Steps> step_kinds = {Steps::kNone, Steps::kProfilerSteps, Steps::kLoopSteps,
                                         Steps::kLateSteps};
  for (const SpillLimits& limits : {tiny_limits(), SpillLimits{}}) {
    for (const Order order : all_orders()) {
      for (const Steps steps : step_kinds) {
        std::mt19937_64 rng(static_cast<uint64_t>(order) * 31 + static_cast<uint64_t>(steps));
        // One stream for several files in a row: it starts afresh for each.
        ThroughputStream stream({}, limits);
        for (uint32_t file = 0; file < 3; ++file) {
          const FileRecords records = random_file(rng, order, steps, 600 + 700 * file);
          INFO(order_name(order) << ", steps " << static_cast<int>(steps) << ", file " << file
                                 << ", chunk " << limits.chunk_intervals);
          const FileThroughput want = through_visitor(records, file);
          CHECK(want.steps.has_value() == (steps != Steps::kNone));
          check_same(through_stream(records, file, stream), want);
        }
      }
    }
  }
}

TEST_CASE("throughput stream: a file without records, and one with only reversed work",
          "[throughput_stream]") {
  ThroughputStream stream;
  const FileThroughput none = stream.finish(0, 7, 0, 0);
  CHECK(none.empty());
  CHECK(none.pid == 7);
  CHECK(none.sync_calls == 0);
  stream.work(2, 50, 40);
  stream.sync_call(10, 5);
  const FileThroughput reversed = stream.finish(1, 8, 0, 100);
  REQUIRE(reversed.devices.size() == 1);  // it ran work, of no length
  CHECK(reversed.devices[0].device == 2);
  CHECK(reversed.devices[0].busy_ns == 0);
  CHECK(reversed.sync_ns == 0);
  CHECK(reversed.sync_calls == 1);
}

}  // namespace
}  // namespace gprof::analysis
