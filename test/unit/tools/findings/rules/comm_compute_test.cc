// The one-pass sweep of communication against compute (comm_compute.h)
// against the plain algorithm on whole lists: unions, then their difference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "tools/findings/rules/comm_compute.h"
#include "tools/findings/rules/rule_tallies.h"

namespace gprof::findings {
namespace {

using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

Intervals joined(Intervals in) {
  std::sort(in.begin(), in.end());
  Intervals out;
  for (const auto& [s, e] : in) {
    if (!out.empty() && s <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(s, e);
  }
  return out;
}

uint64_t length(const Intervals& in) {
  uint64_t total = 0;
  for (const auto& [s, e] : in) total += e - s;
  return total;
}

// a less b, both joined.
Intervals minus(const Intervals& a, const Intervals& b) {
  Intervals out;
  for (auto [s, e] : a) {
    for (const auto& [bs, be] : b) {
      if (be <= s || bs >= e) continue;
      if (bs > s) out.emplace_back(s, bs);
      s = std::max(s, be);
      if (s >= e) break;
    }
    if (s < e) out.emplace_back(s, e);
  }
  return out;
}

struct Item {
  uint64_t start, end;
  bool comm;
};

void check(std::vector<Item> items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.start < b.start; });
  Intervals comm, compute, all;
  CommComputeSweep sweep;
  Intervals exposed, compute_out, busy_out;
  auto take = [&] {
    for (const Segment& s : sweep.exposed) exposed.emplace_back(s.start_ns, s.end_ns);
    for (const Segment& s : sweep.compute) compute_out.emplace_back(s.start_ns, s.end_ns);
    for (const Segment& s : sweep.busy) busy_out.emplace_back(s.start_ns, s.end_ns);
    sweep.exposed.clear();
    sweep.compute.clear();
    sweep.busy.clear();
  };
  uint64_t tag = 0;
  for (const Item& i : items) {
    (i.comm ? comm : compute).emplace_back(i.start, i.end);
    all.emplace_back(i.start, i.end);
    sweep.add(i.start, i.end, i.comm, i.comm ? tag++ : 0);
    take();
  }
  sweep.finish();
  take();
  const Intervals want = minus(joined(comm), joined(compute));
  CHECK(exposed == want);
  CHECK(compute_out == joined(compute));
  CHECK(busy_out == joined(all));
  CHECK(sweep.communication_ns() == length(joined(comm)));
  CHECK(sweep.oldest_unsettled_tag() == UINT64_MAX);
}

TEST_CASE("comm-compute: NCCL's kernels by name", "[analyze][comm]") {
  CHECK(is_communication("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  CHECK(is_communication("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  CHECK(is_communication("void ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, ...)"));
  CHECK(is_communication("void ncclDevKernel_Generic<0>(ncclDevKernelArgsStorage<4096ul>)"));
  CHECK_FALSE(is_communication("ampere_sgemm_128x64_tn"));
  CHECK_FALSE(is_communication("my_nccl_like_kernel(float*)"));
  CHECK_FALSE(is_communication("void at::native::vectorized_elementwise_kernel<4, ...>"));
}

TEST_CASE("comm-compute sweep: hand-worked cases", "[analyze][comm]") {
  // A collective alone: all of it exposed.
  check({{100, 200, true}});
  // Compute covers the middle, starting before and after the collective.
  check({{0, 120, false}, {100, 300, true}, {150, 160, false}, {250, 400, false}});
  // A collective inside one long kernel: nothing exposed.
  check({{0, 1000, false}, {10, 20, true}, {30, 40, true}});
  // Touching stretches join; zero-length work.
  check({{0, 10, true}, {10, 20, true}, {20, 20, false}, {15, 15, true}});
  CommComputeSweep sweep;
  sweep.add(0, 100, false);
  sweep.add(50, 250, true, 7);
  sweep.add(200, 220, false);
  sweep.finish();
  REQUIRE(sweep.exposed.size() == 2);
  CHECK(sweep.exposed[0].start_ns == 100);
  CHECK(sweep.exposed[0].end_ns == 200);
  CHECK(sweep.exposed[0].tag == 7);
  CHECK(sweep.exposed[1].start_ns == 220);
  CHECK(sweep.exposed[1].end_ns == 250);
  CHECK(sweep.communication_ns() == 200);
}

TEST_CASE("comm-compute sweep: random timelines against whole lists", "[analyze][comm]") {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::vector<Item> items;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const uint64_t start = rng() % 2000, len = rng() % 300;
      items.push_back(Item{start, start + len, rng() % 3 == 0});
    }
    check(items);
  }
}

TEST_CASE("comm-compute sweep: holds only what is still open", "[analyze][comm]") {
  // A million kernels and a collective every thousand: what the sweep keeps
  // settles as it goes (the tags still unsettled stay recent).
  CommComputeSweep sweep;
  uint64_t exposed = 0;
  for (uint64_t i = 0; i < 1'000'000; ++i) {
    const bool comm = i % 1000 == 999;
    sweep.add(i * 10, i * 10 + (comm ? 30 : 5), comm, i);
    for (const Segment& s : sweep.exposed) exposed += s.length();
    sweep.exposed.clear();
    sweep.compute.clear();
    sweep.busy.clear();
    if (sweep.oldest_unsettled_tag() != UINT64_MAX) CHECK(sweep.oldest_unsettled_tag() + 3 >= i);
  }
  sweep.finish();
  for (const Segment& s : sweep.exposed) exposed += s.length();
  // Each collective [t, t+30) has compute at t+10..t+15 and t+20..t+25 beside it, but the
  // last, which has none.
  CHECK(exposed == 999 * 20 + 30);
}

TEST_CASE("steps: stretches split over the steps they overlap", "[analyze][comm]") {
  const std::vector<Step> steps = {{100, 200, 0}, {200, 300, 1}, {400, 500, 2}};
  std::vector<uint64_t> ns(steps.size(), 0);
  add_to_steps(steps, 50, 150, ns);   // 50 in step 0
  add_to_steps(steps, 180, 420, ns);  // 20 in step 0, 100 in step 1, 20 in step 2
  add_to_steps(steps, 450, 460, ns);
  add_to_steps(steps, 600, 700, ns);  // after every step
  CHECK(ns == std::vector<uint64_t>{70, 100, 30});
}

}  // namespace
}  // namespace gprof::findings
