// A thread's events streamed frame by frame as the writer batches them
// (thread_stream.h) give the rows of the sort-and-walk (cpu_tree.h), GPU
// time arriving after the walk through its contexts (walk_contexts.h); and
// what the stream cannot place is refused, never walked wrongly.
#include "tools/analysis/model/thread_stream.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/model/cpu_tree.h"

namespace gprof::analysis {
namespace {

// One queue entry of the shim: a call at its start, a push or pop at its time.
struct Entry {
  enum Kind { kCall, kPush, kPop } kind;
  uint64_t time;
  uint64_t end = 0;  // calls
  uint32_t id = 0;   // calls: call index; push/pop: the range's id
  uint32_t label = 0;
  uint64_t device_ns = 0;  // calls: GPU time they issued
};

// A made-up thread: nested ranges with a few names (recursion included),
// calls inside them, equal timestamps now and then.
std::vector<Entry> made_up_thread(std::mt19937_64& rng, int actions) {
  std::vector<Entry> out;
  std::vector<uint32_t> open;
  uint64_t now = 1000;
  uint32_t calls = 0;
  uint32_t ranges = 0;
  const auto step = [&] { now += (rng() % 4 == 0) ? 0 : 1 + rng() % 50; };
  for (int i = 0; i < actions; ++i) {
    const unsigned what = rng() % 10;
    if (what < 3 && open.size() < 6) {
      const uint32_t id = ranges++;
      out.push_back({Entry::kPush, now, 0, id, 100 + static_cast<uint32_t>(rng() % 4), 0});
      open.push_back(id);
    } else if (what < 6 && !open.empty()) {
      out.push_back({Entry::kPop, now, 0, open.back(), 0, 0});
      open.pop_back();
    } else {
      const uint64_t duration = rng() % 3 == 0 ? 0 : rng() % 40;
      out.push_back({Entry::kCall, now, now + duration, calls++, static_cast<uint32_t>(rng() % 3),
                     rng() % 2 ? rng() % 1000 : 0});
      now += duration;
    }
    step();
  }
  while (!open.empty()) {  // some stay open at exit
    if (rng() % 3 == 0) break;
    out.push_back({Entry::kPop, now, 0, open.back(), 0, 0});
    open.pop_back();
    step();
  }
  return out;
}

CpuNode node_of(const Entry& e, uint64_t end) {
  CpuNode n;
  n.start_ns = e.time;
  n.end_ns = end;
  n.id = e.id;
  n.label = e.label;
  if (e.kind != Entry::kCall) n.flags = kNodeRange;
  return n;
}

// The rows by label, and the labels in the order rows were made.
struct Rows : WalkRows {
  uint32_t key_of(const CpuNode& node) override {
    if (!seen.count(node.label)) order.push_back(node.label);
    seen[node.label] = true;
    return node.label;
  }
  Row& row(uint32_t key) override { return rows[key]; }
  std::map<uint32_t, Row> rows;
  std::map<uint32_t, bool> seen;
  std::vector<uint32_t> order;
};

// The sort-and-walk of the same events (the in-memory report).
Rows sorted_walk(const std::vector<Entry>& entries, uint64_t last, CpuTreeRules rules) {
  std::vector<CpuNode> nodes;
  std::map<uint32_t, size_t> pushes;
  for (const Entry& e : entries) {
    if (e.kind == Entry::kCall) {
      CpuNode n = node_of(e, e.end);
      n.own_device_ns = e.device_ns;
      n.id = e.id;  // calls first, ranges after, as ops_rows numbers them
      nodes.push_back(n);
    } else if (e.kind == Entry::kPush) {
      pushes[e.id] = nodes.size();
      nodes.push_back(node_of(e, last));
    } else {
      nodes[pushes[e.id]].end_ns = std::max(e.time, nodes[pushes[e.id]].start_ns);
    }
  }
  const uint32_t calls = static_cast<uint32_t>(std::count_if(
      entries.begin(), entries.end(), [](const Entry& e) { return e.kind == Entry::kCall; }));
  for (CpuNode& n : nodes)
    if (n.flags & kNodeRange) n.id += calls;
  Rows rows;
  KeyAverages averages;
  std::map<uint32_t, uint32_t> label_of_key;
  aggregate_cpu_nodes(
      nodes, rules,
      [&](const CpuNode& n) {
        const uint32_t key = averages.key(std::to_string(n.label), RowKind::kApi);
        label_of_key[key] = n.label;
        return key;
      },
      averages);
  for (const Row& r : averages.finish()) {
    const uint32_t label = static_cast<uint32_t>(std::stoul(r.name));
    rows.rows[label] = r;
    rows.order.push_back(label);
  }
  return rows;
}

// The stream: frames of random size, each delivering its calls before its
// ranges (collector/output/writer_drain.cc batches them apart); GPU time added after the
// whole walk through each call's context. False: the stream refused.
bool streamed(const std::vector<Entry>& entries, uint64_t last, CpuTreeRules rules,
              std::mt19937_64& rng, Rows& rows) {
  WalkContexts contexts;
  std::map<uint32_t, uint32_t> context_of;  // call id -> context
  const WalkedFunction walked = [&](const StreamEvent& e, const WalkVisit& v, NestingWalk&) {
    if (!(e.node.flags & kNodeRange)) context_of[e.node.id] = v.context;
    return true;
  };
  WalkedFunctionEvents events(walked);
  ThreadStream stream(rules, rows, contexts, events);
  std::map<uint32_t, uint64_t> starts;
  size_t at = 0;
  while (at < entries.size()) {
    const size_t end = std::min(entries.size(), at + 1 + rng() % 12);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = at; i < end; ++i) {
        const Entry& e = entries[i];
        if ((pass == 0) != (e.kind == Entry::kCall)) continue;
        // Half copied in (add), half made in place (add_made): the same.
        const auto add = [&](const StreamEvent& event) {
          if (rng() % 2 == 0)
            stream.add(event, e.time);
          else
            stream.add_made((event.node.flags & kNodeRange) != 0, e.time,
                            [&](StreamEvent& made) { made = event; });
        };
        if (e.kind == Entry::kCall) {
          add(StreamEvent{node_of(e, e.end), 1, false});
        } else if (e.kind == Entry::kPush) {
          starts[e.id] = e.time;
          add(StreamEvent{node_of(e, kOpenEnd), 0, false});
        } else {
          starts.erase(e.id);
          if (!stream.set_end(e.id, e.time)) return false;
          stream.advance(e.time);
        }
      }
    }
    if (!stream.end_frame()) return false;
    at = end;
  }
  // Open at exit: the innermost first.
  for (auto it = starts.rbegin(); it != starts.rend(); ++it)
    if (!stream.set_end(it->first, last)) return false;
  if (!stream.finish()) return false;
  for (const Entry& e : entries)
    if (e.kind == Entry::kCall && e.device_ns != 0)
      add_device_time(contexts, context_of.at(e.id), e.device_ns,
                      [&](uint32_t key) -> Row& { return rows.rows[key]; });
  return true;
}

void require_same(const Rows& expected, const Rows& got) {
  REQUIRE(got.order == expected.order);
  for (const auto& [label, want] : expected.rows) {
    const Row& row = got.rows.at(label);
    INFO("label " << label);
    CHECK(row.count == want.count);
    CHECK(row.self_cpu_ns == want.self_cpu_ns);
    CHECK(row.cpu_total_ns == want.cpu_total_ns);
    CHECK(row.self_device_ns == want.self_device_ns);
    CHECK(row.device_total_ns == want.device_total_ns);
    CHECK(row.issued_device_ns == want.issued_device_ns);
  }
}

TEST_CASE("a thread streamed frame by frame gives the rows of the sorted walk") {
  for (const bool top_level_only : {false, true}) {
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      std::mt19937_64 rng(seed);
      const std::vector<Entry> entries = made_up_thread(rng, 20 + static_cast<int>(seed % 60));
      uint64_t last = 0;
      for (const Entry& e : entries) last = std::max({last, e.time, e.end});
      const CpuTreeRules rules{false, top_level_only};
      Rows got;
      INFO("seed " << seed << " top_level_only " << top_level_only);
      REQUIRE(streamed(entries, last, rules, rng, got));
      require_same(sorted_walk(entries, last, rules), got);
    }
  }
}

TEST_CASE("a deep nest popped from the inside out gives the rows of the sorted walk") {
  // Each pop finds its range under the ranges that ended before it, all
  // walked long before (NestingWalk's open ranges).
  for (const int depth : {1, 2, 3, 5000}) {
    std::vector<Entry> entries;
    uint64_t now = 10;
    for (int i = 0; i < depth; ++i)
      entries.push_back({Entry::kPush, now++, 0, static_cast<uint32_t>(i),
                         100 + static_cast<uint32_t>(i % 3), 0});
    entries.push_back({Entry::kCall, now, now + 5, 0, 1, 7});
    now += 6;
    for (int i = depth; i-- > 0;) {
      entries.push_back({Entry::kPop, now, 0, static_cast<uint32_t>(i), 0, 0});
      now += static_cast<uint64_t>(i % 2);  // some end together
    }
    for (const bool top_level_only : {false, true}) {
      INFO("depth " << depth << " top_level_only " << top_level_only);
      const CpuTreeRules rules{false, top_level_only};
      std::mt19937_64 rng(static_cast<uint64_t>(depth));
      Rows got;
      REQUIRE(streamed(entries, now, rules, rng, got));
      require_same(sorted_walk(entries, now, rules), got);
    }
  }
}

// A stream whose walked events go nowhere, for the refusal cases.
struct Bare {
  CpuTreeRules rules;  // the walk keeps a reference
  Rows rows;
  WalkContexts contexts;
  WalkedFunctionEvents events{
      [](const StreamEvent&, const WalkVisit&, NestingWalk&) { return true; }};
  ThreadStream stream{rules, rows, contexts, events};
};

// Holds calls until ready() says their label is known (--group-by stream:
// the stream of the first GPU work a call issued).
struct Holding final : WalkedEvents {
  std::map<uint32_t, uint32_t> known;  // call id -> label
  std::vector<uint32_t> walked_ids;
  bool walked(const StreamEvent& e, const WalkVisit&, NestingWalk&) override {
    walked_ids.push_back(e.node.id);
    return true;
  }
  bool ready(StreamEvent& e, bool must) override {
    auto it = known.find(e.node.id);
    if (it == known.end()) return must;
    e.node.label = it->second;
    return true;
  }
};

TEST_CASE("a held event holds the thread's later ones until it is ready, or too many wait") {
  CpuTreeRules rules;
  Rows rows;
  WalkContexts contexts;
  Holding holding;
  ThreadStream stream(rules, rows, contexts, holding);
  stream.hold_until_ready(4);
  const auto call = [&](uint32_t id, uint64_t start) {
    CpuNode n;
    n.start_ns = start;
    n.end_ns = start + 5;
    n.id = id;
    n.label = 1;
    stream.add(StreamEvent{n, id + 1}, start);
  };
  holding.known[0] = 7;
  call(0, 10);
  call(1, 20);  // not ready
  call(2, 30);
  stream.advance(100);
  REQUIRE(stream.end_frame());
  CHECK(holding.walked_ids == std::vector<uint32_t>{0});
  holding.known[1] = 8;
  holding.known[2] = 7;
  REQUIRE(stream.end_frame());
  CHECK(holding.walked_ids == std::vector<uint32_t>{0, 1, 2});
  CHECK(rows.rows[7].count == 2);
  CHECK(rows.rows[8].count == 1);
  // Four waiting: the first is walked as it is (label 1).
  for (uint32_t id = 3; id < 7; ++id) call(id, 40 + 10 * id);
  stream.advance(200);
  REQUIRE(stream.end_frame());
  CHECK(holding.walked_ids.size() == 4);
  CHECK(rows.rows[1].count == 1);
  REQUIRE(stream.finish());  // the rest, whatever ready() says
  CHECK(holding.walked_ids.size() == 7);
  CHECK(rows.rows[1].count == 4);
}

TEST_CASE("an event that belongs before one already walked is refused") {
  Bare bare;
  ThreadStream& stream = bare.stream;
  CpuNode late;
  late.start_ns = 100;
  late.end_ns = 200;
  stream.add(StreamEvent{late, 0, false}, 100);
  stream.advance(300);
  REQUIRE(stream.end_frame());  // walked: it starts before 300
  CpuNode earlier = late;
  earlier.start_ns = 50;
  earlier.id = 1;
  stream.add(StreamEvent{earlier, 0, false}, 50);
  CHECK_FALSE(stream.end_frame());
}

TEST_CASE("events made in place out of order are sorted, and refused once walked past") {
  Bare bare;
  ThreadStream& stream = bare.stream;
  const auto call = [&](uint64_t start, uint32_t id) {
    stream.add_made(false, start, [&](StreamEvent& e) {
      e.node.start_ns = start;
      e.node.end_ns = start + 10;
      e.node.id = id;
    });
  };
  call(100, 0);
  call(40, 1);  // before the one above: sorted when the frame ends
  stream.advance(300);
  REQUIRE(stream.end_frame());
  call(50, 2);  // before both walked ones
  CHECK_FALSE(stream.end_frame());
}

// A push not yet popped, as the stream walks it.
CpuNode pushed(uint64_t start_ns, uint32_t id) {
  CpuNode n;
  n.start_ns = start_ns;
  n.end_ns = kOpenEnd;
  n.flags = kNodeRange;
  n.id = id;
  return n;
}

TEST_CASE("ranges of two domains that cross are refused, not nested") {
  // Domain A pushes at 10, domain B at 20; A pops at 30, B at 40: B is no
  // child of A, which the walk could only know at A's pop.
  Bare bare;
  ThreadStream& stream = bare.stream;
  const CpuNode a = pushed(10, 0);
  const CpuNode b = pushed(20, 1);
  stream.add(StreamEvent{a, 0, false}, 10);
  stream.add(StreamEvent{b, 0, false}, 20);
  stream.advance(25);
  REQUIRE(stream.end_frame());
  CHECK_FALSE(stream.set_end(0, 30));
}

TEST_CASE("an end that a range ended above it does not fit in is refused") {
  // A pushed at 10, B at 20, a call 30..45 in B; B pops at 50, then A at
  // 40 would end inside B.
  Bare bare;
  ThreadStream& stream = bare.stream;
  const CpuNode a = pushed(10, 0);
  const CpuNode b = pushed(20, 1);
  CpuNode call;
  call.start_ns = 30;
  call.end_ns = 45;
  call.id = 2;
  stream.add(StreamEvent{a, 0, false}, 10);
  stream.add(StreamEvent{b, 0, false}, 20);
  stream.add(StreamEvent{call, 1, false}, 30);
  stream.advance(46);
  REQUIRE(stream.end_frame());
  REQUIRE(stream.set_end(1, 50));
  CHECK_FALSE(stream.set_end(0, 40));
}

}  // namespace
}  // namespace gprof::analysis
