#include "tools/analysis/key_averages.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace gprof::analysis {
namespace {

struct Event {
  uint64_t thread;
  uint64_t start;
  uint64_t end;
  std::string name;
};

std::vector<Row> aggregate(const std::vector<Event>& events) {
  KeyAverages averages;
  for (const Event& e : events)
    averages.add_cpu_event(e.thread, e.start, e.end, averages.key(e.name, RowKind::kApi));
  return averages.finish();
}

const Row& find(const std::vector<Row>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
  REQUIRE(it != rows.end());
  return *it;
}

TEST_CASE("key averages: flat events", "[key_averages]") {
  const auto rows = aggregate({{1, 0, 10, "a"}, {1, 20, 25, "a"}, {1, 30, 40, "b"}});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "a");
  CHECK(rows[0].count == 2);
  CHECK(rows[0].self_cpu_ns == 15);
  CHECK(rows[0].cpu_total_ns == 15);
  CHECK(rows[0].cpu_avg_ns() == 7.5);
  CHECK(rows[1].name == "b");
  CHECK(rows[1].self_cpu_ns == 10);
}

TEST_CASE("key averages: self time excludes direct children only", "[key_averages]") {
  // range [0,100) > api [10,40) > inner [15,20); api [50,60) in the range.
  const auto rows = aggregate(
      {{1, 0, 100, "range"}, {1, 10, 40, "api"}, {1, 15, 20, "inner"}, {1, 50, 60, "api"}});
  const Row& range = find(rows, "range");
  CHECK(range.cpu_total_ns == 100);
  CHECK(range.self_cpu_ns == 100 - 30 - 10);
  const Row& api = find(rows, "api");
  CHECK(api.count == 2);
  CHECK(api.cpu_total_ns == 40);
  CHECK(api.self_cpu_ns == 25 + 10);
  const Row& inner = find(rows, "inner");
  CHECK(inner.self_cpu_ns == 5);
}

TEST_CASE("key averages: recursion is counted once in CPU total", "[key_averages]") {
  // f [0,100) > f [10,50) > f [20,30); g [60,70) inside the outer f.
  const auto rows =
      aggregate({{1, 0, 100, "f"}, {1, 10, 50, "f"}, {1, 20, 30, "f"}, {1, 60, 70, "g"}});
  const Row& f = find(rows, "f");
  CHECK(f.count == 3);
  CHECK(f.cpu_total_ns == 100);
  // self: outer 100-40-10, middle 40-10, inner 10
  CHECK(f.self_cpu_ns == 50 + 30 + 10);
  // An f nested in g (not in another f) counts in full.
  const auto rows2 = aggregate({{1, 0, 100, "g"}, {1, 10, 20, "f"}, {1, 30, 40, "f"}});
  CHECK(find(rows2, "f").cpu_total_ns == 20);
}

TEST_CASE("key averages: nesting is per thread", "[key_averages]") {
  const auto rows = aggregate({{1, 0, 100, "outer"}, {2, 10, 20, "other"}});
  CHECK(find(rows, "outer").self_cpu_ns == 100);
  CHECK(find(rows, "other").self_cpu_ns == 10);
}

TEST_CASE("key averages: a partial overlap is not nesting", "[key_averages]") {
  const auto rows = aggregate({{1, 0, 50, "a"}, {1, 40, 60, "b"}});
  CHECK(find(rows, "a").self_cpu_ns == 50);
  CHECK(find(rows, "b").self_cpu_ns == 20);
}

TEST_CASE("key averages: edges", "[key_averages]") {
  SECTION("an event starting where another ends is its sibling") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 10, 20, "b"}});
    CHECK(find(rows, "a").self_cpu_ns == 10);
  }
  SECTION("an event ending where its parent ends is a child") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 5, 10, "b"}});
    CHECK(find(rows, "a").self_cpu_ns == 5);
  }
  SECTION("equal intervals: the first is the parent") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 0, 10, "b"}});
    CHECK(find(rows, "a").self_cpu_ns == 0);
    CHECK(find(rows, "b").self_cpu_ns == 10);
  }
  SECTION("zero-length events") {
    const auto rows = aggregate({{1, 5, 5, "z"}, {1, 0, 10, "a"}});
    CHECK(find(rows, "z").count == 1);
    CHECK(find(rows, "a").self_cpu_ns == 10);
  }
  SECTION("an end before the start counts as zero length") {
    const auto rows = aggregate({{1, 10, 5, "z"}});
    CHECK(find(rows, "z").cpu_total_ns == 0);
  }
  SECTION("overlapping children never make self time negative") {
    const auto rows = aggregate({{1, 0, 20, "p"}, {1, 0, 15, "c"}, {1, 5, 20, "c"}});
    CHECK(find(rows, "p").self_cpu_ns == 0);
  }
}

TEST_CASE("key averages: arrival order does not matter", "[key_averages]") {
  std::vector<Event> events = {{1, 0, 100, "range"}, {1, 10, 40, "api"},  {1, 15, 20, "inner"},
                               {1, 50, 60, "api"},   {2, 5, 500, "sync"}, {2, 6, 7, "api"}};
  const auto expected = aggregate(events);
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    std::shuffle(events.begin(), events.end(), rng);
    const auto rows = aggregate(events);
    for (const Row& want : expected) {
      const Row& got = find(rows, want.name);
      CHECK(got.count == want.count);
      CHECK(got.self_cpu_ns == want.self_cpu_ns);
      CHECK(got.cpu_total_ns == want.cpu_total_ns);
    }
  }
}

TEST_CASE("key averages: GPU activities count calls and GPU time only", "[key_averages]") {
  KeyAverages averages;
  const auto launch = averages.key("cudaLaunchKernel", RowKind::kApi);
  const auto kernel = averages.key("square(float*, int)", RowKind::kGpu);
  averages.add_cpu_event(1, 0, 10, launch);
  averages.add_gpu_activity(kernel, 0);
  averages.add_gpu_activity(kernel, 0);
  CHECK(averages.key("square(float*, int)", RowKind::kGpu) == kernel);
  const auto rows = averages.finish();
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].kind == RowKind::kGpu);
  CHECK(rows[1].count == 2);
  CHECK(rows[1].self_cpu_ns == 0);
  CHECK(rows[1].cpu_total_ns == 0);
  CHECK(rows[1].cpu_avg_ns() == 0);
}

TEST_CASE("key averages: GPU time of an API call adds no call", "[key_averages]") {
  KeyAverages averages;
  const auto launch = averages.key("cudaLaunchKernel", RowKind::kApi);
  averages.add_cpu_event(1, 0, 10, launch);
  averages.add_cpu_event(1, 20, 30, launch);
  averages.add_device_time(launch, 700);
  averages.add_device_time(launch, 300);
  const auto rows = averages.finish();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].count == 2);
  CHECK(rows[0].self_device_ns == 1000);
  CHECK(rows[0].device_total_ns == 1000);
  CHECK(rows[0].device_avg_ns() == 500);
  CHECK(rows[0].cpu_total_ns == 20);
}

}  // namespace
}  // namespace gprof::analysis
