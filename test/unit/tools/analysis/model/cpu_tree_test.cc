// How CPU-side events nest and what each adds to its row (cpu_tree.h,
// docs/architecture.md §7): self and total CPU, CUDA and memory, recursion, scope.
#include "tools/analysis/model/cpu_tree.h"

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
  uint8_t flags = 0;  // CpuNodeFlag; kNodeRange makes a range row
  uint64_t device = 0;
  int64_t device_mem = 0;
  int64_t host_mem = 0;  // a call moves one kind of memory: this one when not 0
};

struct Result {
  std::vector<Row> rows;
  std::vector<uint8_t> flags;  // by event index
};

Result aggregate(const std::vector<Event>& events, CpuTreeRules rules = {}) {
  KeyAverages averages;
  std::vector<CpuNode> nodes;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    CpuNode n;
    n.start_ns = e.start;
    n.end_ns = e.end;
    n.thread = static_cast<uint32_t>(e.thread);
    n.own_device_ns = e.device;
    n.own_mem = e.host_mem != 0 ? e.host_mem : e.device_mem;
    n.id = static_cast<uint32_t>(i);
    n.label = static_cast<uint32_t>(i);
    n.flags = static_cast<uint8_t>(e.flags | (e.host_mem != 0 ? kNodeHostMemory : 0));
    nodes.push_back(n);
  }
  const auto key_of = [&](const CpuNode& n) {
    const Event& e = events[n.label];
    return averages.key(e.name, e.flags & kNodeRange ? RowKind::kRange : RowKind::kApi);
  };
  Result out;
  out.flags = aggregate_cpu_nodes(nodes, rules, key_of, averages);
  out.rows = averages.finish();
  return out;
}

const Row& find(const std::vector<Row>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
  INFO(name);
  REQUIRE(it != rows.end());
  return *it;
}

bool has(const std::vector<Row>& rows, const std::string& name) {
  return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
}

TEST_CASE("cpu tree: flat events", "[cpu_tree]") {
  const auto rows = aggregate({{1, 0, 10, "a"}, {1, 20, 25, "a"}, {1, 30, 40, "b"}}).rows;
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "a");
  CHECK(rows[0].count == 2);
  CHECK(rows[0].self_cpu_ns == 15);
  CHECK(rows[0].cpu_total_ns == 15);
  CHECK(rows[0].cpu_avg_ns() == 7.5);
  CHECK(rows[1].name == "b");
  CHECK(rows[1].self_cpu_ns == 10);
}

TEST_CASE("cpu tree: self time excludes direct children only", "[cpu_tree]") {
  // range [0,100) > api [10,40) > inner [15,20); api [50,60) in the range.
  const auto rows = aggregate({{1, 0, 100, "range", kNodeRange},
                               {1, 10, 40, "api"},
                               {1, 15, 20, "inner"},
                               {1, 50, 60, "api"}})
                        .rows;
  const Row& range = find(rows, "range");
  CHECK(range.kind == RowKind::kRange);
  CHECK(range.cpu_total_ns == 100);
  CHECK(range.self_cpu_ns == 100 - 30 - 10);
  const Row& api = find(rows, "api");
  CHECK(api.count == 2);
  CHECK(api.cpu_total_ns == 40);
  CHECK(api.self_cpu_ns == 25 + 10);
  CHECK(find(rows, "inner").self_cpu_ns == 5);
}

TEST_CASE("cpu tree: recursion is counted once in CPU total", "[cpu_tree]") {
  // f [0,100) > f [10,50) > f [20,30); g [60,70) inside the outer f.
  const auto rows =
      aggregate({{1, 0, 100, "f"}, {1, 10, 50, "f"}, {1, 20, 30, "f"}, {1, 60, 70, "g"}}).rows;
  const Row& f = find(rows, "f");
  CHECK(f.count == 3);
  CHECK(f.cpu_total_ns == 100);
  // self: outer 100-40-10, middle 40-10, inner 10
  CHECK(f.self_cpu_ns == 50 + 30 + 10);
  // An f nested in g (not in another f) counts in full.
  const auto rows2 = aggregate({{1, 0, 100, "g"}, {1, 10, 20, "f"}, {1, 30, 40, "f"}}).rows;
  CHECK(find(rows2, "f").cpu_total_ns == 20);
}

TEST_CASE("cpu tree: nesting is per thread", "[cpu_tree]") {
  const auto rows = aggregate({{1, 0, 100, "outer"}, {2, 10, 20, "other"}}).rows;
  CHECK(find(rows, "outer").self_cpu_ns == 100);
  CHECK(find(rows, "other").self_cpu_ns == 10);
}

TEST_CASE("cpu tree: a partial overlap is not nesting", "[cpu_tree]") {
  const auto rows = aggregate({{1, 0, 50, "a"}, {1, 40, 60, "b"}}).rows;
  CHECK(find(rows, "a").self_cpu_ns == 50);
  CHECK(find(rows, "b").self_cpu_ns == 20);
}

TEST_CASE("cpu tree: edges", "[cpu_tree]") {
  SECTION("an event starting where another ends is its sibling") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 10, 20, "b"}}).rows;
    CHECK(find(rows, "a").self_cpu_ns == 10);
  }
  SECTION("an event ending where its parent ends is a child") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 5, 10, "b"}}).rows;
    CHECK(find(rows, "a").self_cpu_ns == 5);
  }
  SECTION("equal intervals: the first is the parent") {
    const auto rows = aggregate({{1, 0, 10, "a"}, {1, 0, 10, "b"}}).rows;
    CHECK(find(rows, "a").self_cpu_ns == 0);
    CHECK(find(rows, "b").self_cpu_ns == 10);
  }
  SECTION("equal intervals: a range encloses the call whatever the order") {
    const auto rows = aggregate({{1, 0, 10, "call"}, {1, 0, 10, "range", kNodeRange}}).rows;
    CHECK(find(rows, "range").self_cpu_ns == 0);
    CHECK(find(rows, "call").self_cpu_ns == 10);
  }
  SECTION("zero-length events") {
    const auto rows = aggregate({{1, 5, 5, "z"}, {1, 0, 10, "a"}}).rows;
    CHECK(find(rows, "z").count == 1);
    CHECK(find(rows, "a").self_cpu_ns == 10);
  }
  SECTION("an end before the start counts as zero length") {
    const auto rows = aggregate({{1, 10, 5, "z"}}).rows;
    CHECK(find(rows, "z").cpu_total_ns == 0);
  }
  SECTION("overlapping children never make self time negative") {
    const auto rows = aggregate({{1, 0, 20, "p"}, {1, 0, 15, "c"}, {1, 5, 20, "c"}}).rows;
    CHECK(find(rows, "p").self_cpu_ns == 0);
  }
}

TEST_CASE("cpu tree: arrival order does not matter", "[cpu_tree]") {
  std::vector<Event> events = {{1, 0, 100, "range", kNodeRange, 0, 64, 0},
                               {1, 10, 40, "api", 0, 700, 0, 8},
                               {1, 15, 20, "inner", 0, 5, 0, 0},
                               {1, 50, 60, "api", 0, 300, -32, 0},
                               {2, 5, 500, "sync"},
                               {2, 6, 7, "api", 0, 11, 0, 0}};
  const auto expected = aggregate(events).rows;
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    std::shuffle(events.begin(), events.end(), rng);
    const auto rows = aggregate(events).rows;
    for (const Row& want : expected) {
      const Row& got = find(rows, want.name);
      CHECK(got.count == want.count);
      CHECK(got.self_cpu_ns == want.self_cpu_ns);
      CHECK(got.cpu_total_ns == want.cpu_total_ns);
      CHECK(got.self_device_ns == want.self_device_ns);
      CHECK(got.device_total_ns == want.device_total_ns);
      CHECK(got.issued_device_ns == want.issued_device_ns);
      CHECK(got.self_device_mem == want.self_device_mem);
      CHECK(got.device_mem == want.device_mem);
      CHECK(got.cpu_mem == want.cpu_mem);
    }
  }
}

TEST_CASE("cpu tree: CUDA time of a range at depth", "[cpu_tree]") {
  // outer [0,1000) > mid [100,600) > launch [200,250) issued 500 ns of work
  //                                 > inner [300,500) > launch [350,360): 70
  // outer > launch [700,750): 300; a launch outside any range: 9.
  const auto rows = aggregate({{1, 0, 1000, "outer", kNodeRange},
                               {1, 100, 600, "mid", kNodeRange},
                               {1, 200, 250, "launch", 0, 500},
                               {1, 300, 500, "inner", kNodeRange},
                               {1, 350, 360, "launch", 0, 70},
                               {1, 700, 750, "launch", 0, 300},
                               {1, 2000, 2010, "launch", 0, 9}})
                        .rows;
  const Row& outer = find(rows, "outer");
  CHECK(outer.self_device_ns == 300);  // the launch directly inside it
  CHECK(outer.device_total_ns == 870);
  const Row& mid = find(rows, "mid");
  CHECK(mid.self_device_ns == 500);
  CHECK(mid.device_total_ns == 570);
  const Row& inner = find(rows, "inner");
  CHECK(inner.self_device_ns == 70);
  CHECK(inner.device_total_ns == 70);
  // As in torch, the runtime event carries no CUDA time: the kernels are the
  // ranges'; the call keeps what it issued for --view api.
  const Row& launch = find(rows, "launch");
  CHECK(launch.count == 4);
  CHECK(launch.self_device_ns == 0);
  CHECK(launch.device_total_ns == 0);
  CHECK(launch.issued_device_ns == 879);
  CHECK(launch.issued_avg_ns() == Approx(879.0 / 4));
  CHECK(outer.issued_device_ns == 0);
}

TEST_CASE("cpu tree: recursion is counted once in CUDA total", "[cpu_tree]") {
  // f [0,100) > f [10,50) > launch [20,30): 400; f [0,100) > launch [60,70): 100.
  const auto rows = aggregate({{1, 0, 100, "f", kNodeRange},
                               {1, 10, 50, "f", kNodeRange},
                               {1, 20, 30, "launch", 0, 400},
                               {1, 60, 70, "launch", 0, 100}})
                        .rows;
  const Row& f = find(rows, "f");
  CHECK(f.count == 2);
  CHECK(f.self_device_ns == 400 + 100);  // each f's direct launches
  CHECK(f.device_total_ns == 500);       // not 500 + 400
  CHECK(f.cpu_total_ns == 100);
}

TEST_CASE("cpu tree: memory, self and total", "[cpu_tree]") {
  // R > malloc +1024, cudaMallocHost +512; R > S > malloc +2048, free -1024.
  const auto rows = aggregate({{1, 0, 100, "R", kNodeRange},
                               {1, 10, 20, "cudaMalloc", 0, 0, 1024, 0},
                               {1, 25, 30, "cudaMallocHost", 0, 0, 0, 512},
                               {1, 40, 90, "S", kNodeRange},
                               {1, 50, 60, "cudaMalloc", 0, 0, 2048, 0},
                               {1, 70, 80, "cudaFree", 0, 0, -1024, 0}})
                        .rows;
  const Row& r = find(rows, "R");
  CHECK(r.self_device_mem == 1024);
  CHECK(r.device_mem == 2048);
  CHECK(r.self_cpu_mem == 512);
  CHECK(r.cpu_mem == 512);
  const Row& s = find(rows, "S");
  CHECK(s.self_device_mem == 1024);
  CHECK(s.device_mem == 1024);
  CHECK(s.cpu_mem == 0);
  const Row& malloc_row = find(rows, "cudaMalloc");
  CHECK(malloc_row.self_device_mem == 3072);
  CHECK(malloc_row.device_mem == 3072);
  CHECK(find(rows, "cudaFree").device_mem == -1024);
  CHECK(find(rows, "cudaMallocHost").self_cpu_mem == 512);
}

TEST_CASE("cpu tree: start/end ranges are neither parents nor children", "[cpu_tree]") {
  // A detached range over a call and a push/pop range on the same thread.
  const auto result = aggregate({{1, 0, 100, "async", kNodeRange | kNodeDetached},
                                 {1, 10, 90, "range", kNodeRange},
                                 {1, 20, 30, "launch", 0, 50}});
  const Row& async = find(result.rows, "async");
  CHECK(async.self_cpu_ns == 100);
  CHECK(async.cpu_total_ns == 100);
  CHECK(async.device_total_ns == 0);
  const Row& range = find(result.rows, "range");
  CHECK(range.self_cpu_ns == 70);
  CHECK(range.device_total_ns == 50);
  CHECK(result.flags[2] == (kResultUnderRange | kResultKept));
  CHECK(result.flags[0] == kResultKept);
}

TEST_CASE("cpu tree: scope by range and top level", "[cpu_tree]") {
  const std::vector<Event> events = {
      {1, 0, 100, "step", kNodeRange},    {1, 10, 60, "forward", kNodeRange | kNodeScopeRoot},
      {1, 20, 30, "launch", 0, 40},       {1, 70, 80, "launch", 0, 5},
      {1, 200, 210, "launch", 0, 7},      {2, 0, 300, "loader", kNodeRange | kNodeDetached},
      {2, 50, 55, "copy", kNodeInWindow},
  };
  SECTION("no rules: everything, flags all the same") {
    const Result r = aggregate(events);
    CHECK(find(r.rows, "launch").count == 3);
    CHECK(r.flags[1] == (kResultInRange | kResultUnderRange | kResultKept));
    CHECK(r.flags[2] == (kResultInRange | kResultUnderRange | kResultKept));
    CHECK(r.flags[3] == (kResultUnderRange | kResultKept));
    CHECK(r.flags[4] == kResultKept);
    CHECK(r.flags[6] == (kResultInRange | kResultKept));
  }
  SECTION("--range: the named range and what is inside it") {
    const Result r = aggregate(events, CpuTreeRules{true, false});
    CHECK_FALSE(has(r.rows, "step"));
    CHECK_FALSE(has(r.rows, "loader"));
    const Row& forward = find(r.rows, "forward");
    CHECK(forward.count == 1);
    CHECK(forward.self_cpu_ns == 40);
    CHECK(forward.device_total_ns == 40);
    const Row& launch = find(r.rows, "launch");
    CHECK(launch.count == 1);
    CHECK(launch.device_total_ns == 0);
    CHECK(launch.issued_device_ns == 40);
    CHECK(find(r.rows, "copy").count == 1);  // inside a named start/end range
    CHECK(r.flags[3] == kResultUnderRange);  // not kept
  }
  SECTION("--top-level-only: events without a parent, values from the whole tree") {
    const Result r = aggregate(events, CpuTreeRules{false, true});
    const Row& step = find(r.rows, "step");
    CHECK(step.self_cpu_ns == 100 - 50 - 10);
    CHECK(step.device_total_ns == 45);
    CHECK(step.self_device_ns == 5);
    CHECK_FALSE(has(r.rows, "forward"));
    CHECK(find(r.rows, "launch").count == 1);  // the one outside any range
    CHECK(find(r.rows, "launch").self_device_ns == 0);
    CHECK(find(r.rows, "launch").issued_device_ns == 7);
    CHECK(find(r.rows, "loader").count == 1);
    CHECK(find(r.rows, "copy").count == 1);  // the loader range is no parent
  }
  SECTION("both") {
    const Result r = aggregate(events, CpuTreeRules{true, true});
    REQUIRE(r.rows.size() == 1);
    CHECK(r.rows[0].name == "copy");
  }
}

TEST_CASE("cpu tree: recursion among kept events only", "[cpu_tree]") {
  // f > R(named) > f: with --range R, the inner f's outer f is out of scope,
  // so the inner one counts in full.
  const Result r = aggregate({{1, 0, 100, "f", kNodeRange},
                              {1, 10, 90, "R", kNodeRange | kNodeScopeRoot},
                              {1, 20, 40, "f", kNodeRange}},
                             CpuTreeRules{true, false});
  CHECK(find(r.rows, "f").cpu_total_ns == 20);
  CHECK(find(r.rows, "R").self_cpu_ns == 60);
}

}  // namespace
}  // namespace gprof::analysis
