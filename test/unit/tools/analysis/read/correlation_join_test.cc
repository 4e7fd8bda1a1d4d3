#include "tools/analysis/read/correlation_join.h"

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
namespace {

struct Call {
  uint64_t correlation;
  uint64_t start_ns;
  uint32_t index;
};
struct CallOrder {
  bool operator()(const Call& a, const Call& b) const {
    return std::tie(a.correlation, a.start_ns, a.index) <
           std::tie(b.correlation, b.start_ns, b.index);
  }
};
struct Gpu {
  uint64_t correlation;  // joined on
  uint64_t own;          // as recorded
  uint32_t seq;
};
struct GpuOrder {
  bool operator()(const Gpu& a, const Gpu& b) const {
    return std::tie(a.correlation, a.seq) < std::tie(b.correlation, b.seq);
  }
};

// What the join told: for each GPU record (by seq), the index of its call
// or -1; and the calls told as owner/other.
struct Told {
  std::map<uint32_t, int64_t> call_of;
  std::vector<uint32_t> owners, others;
  std::vector<std::string> order;  // the visit's calls, in turn
  uint32_t current = 0;
  bool open = false;

  void owner(const Call& c) {
    CHECK_FALSE(open);
    open = true;
    current = c.index;
    owners.push_back(c.index);
    order.push_back("owner");
  }
  void issued(const Gpu& g) {
    CHECK(open);
    CHECK(call_of.emplace(g.seq, current).second);
    order.push_back("issued");
  }
  void owned() {
    CHECK(open);
    open = false;
    order.push_back("owned");
  }
  void other(const Call& c) {
    others.push_back(c.index);
    order.push_back("other");
  }
  void unpaired(const Gpu& g) {
    CHECK(call_of.emplace(g.seq, -1).second);
    order.push_back("unpaired");
  }
};

// Small budgets, so that every sorter spills and merges runs.
struct Input {
  SortResources sort{3 * sizeof(Gpu) * 2, false, 1};
  SpillSorter<Call, CallOrder> calls{2};
  SpillSorter<Gpu, GpuOrder> gpu{3};
  SpillSorter<ExternalId, ByCuptiId> externals{2};
  PagedBits called;
  uint32_t calls_added = 0, gpu_added = 0;

  void call(uint64_t correlation, uint64_t start) {
    calls.add(Call{correlation, start, calls_added++});
    if (correlation != 0) called.set(correlation);
  }
  void record(uint64_t correlation) { gpu.add(Gpu{correlation, correlation, gpu_added++}); }
  Told join(PairingMode mode = PairingMode::kCorrelation) {
    Told told;
    pair_by_correlation(calls, gpu, externals, called, mode, sort, told);
    return told;
  }
};

TEST_CASE("correlation join: by id, the first call of an id by start", "[correlation_join]") {
  Input in;
  in.call(30, 300);  // call 0
  in.call(10, 500);  // call 1: a later start of id 10
  in.call(10, 100);  // call 2: id 10's first
  in.call(0, 50);    // call 3: id 0 never pairs
  in.call(20, 200);  // call 4: issues nothing
  in.record(10);     // gpu 0
  in.record(30);     // gpu 1
  in.record(10);     // gpu 2
  in.record(0);      // gpu 3: unpaired
  in.record(40);     // gpu 4: no call of id 40
  const Told told = in.join();
  CHECK(told.call_of == std::map<uint32_t, int64_t>{{0, 2}, {1, 0}, {2, 2}, {3, -1}, {4, -1}});
  CHECK(told.owners == std::vector<uint32_t>{2, 4, 0});  // ids 10, 20, 30
  CHECK(told.others == std::vector<uint32_t>{3, 1});     // id 0, then id 10's later call
  CHECK(told.order == std::vector<std::string>{"other", "unpaired", "owner", "issued", "issued",
                                               "owned", "other", "owner", "owned", "owner",
                                               "issued", "owned", "unpaired"});
}

TEST_CASE("correlation join: through external correlations", "[correlation_join]") {
  const uint64_t pushed = kPushedIdBase;
  Input in;
  in.call(pushed + 1, 100);  // call 0: pushed ids (a takeover)
  in.call(pushed + 2, 200);  // call 1
  in.call(7, 700);           // call 2: a call carrying CUPTI id 7 itself
  in.call(9, 50);            // call 3: before the takeover
  in.externals.add(ExternalId{7, pushed + 1});
  in.externals.add(ExternalId{8, pushed + 3});  // two mappings of 8: the smaller
  in.externals.add(ExternalId{8, pushed + 2});
  in.externals.add(ExternalId{9, pushed + 9});  // no call pushed that id
  in.record(7);                                 // gpu 0 -> call 0, not call 2
  in.record(8);                                 // gpu 1 -> call 1
  in.record(9);                                 // gpu 2 -> its own id: call 3
  in.record(11);                                // gpu 3: none
  SECTION("correlation mode") {
    const Told told = in.join();
    CHECK(told.call_of == std::map<uint32_t, int64_t>{{0, 0}, {1, 1}, {2, 3}, {3, -1}});
  }
  SECTION("external only (an older gprof's ids): never by a record's own id") {
    const Told told = in.join(PairingMode::kExternalOnly);
    CHECK(told.call_of == std::map<uint32_t, int64_t>{{0, 0}, {1, 1}, {2, -1}, {3, -1}});
  }
}

// The rule, written out plainly: the index of the call that issued a GPU
// record of `id`, or -1.
struct Reference {
  struct RefCall {
    uint64_t id, start;
    int64_t index;
  };
  std::vector<RefCall> calls;
  std::vector<ExternalId> mappings;

  // Of the calls with this id, the first by start (then by index).
  int64_t first_call(uint64_t id) const {
    const RefCall* best = nullptr;
    for (const RefCall& c : calls)
      if (c.id == id && id != 0 &&
          (best == nullptr || std::tie(c.start, c.index) < std::tie(best->start, best->index)))
        best = &c;
    return best != nullptr ? best->index : -1;
  }
  int64_t call_of(uint64_t id, PairingMode mode) const {
    if (id == 0) return -1;
    // Of two mappings of one id, the smaller pushed id.
    std::optional<uint64_t> pushed;
    for (const ExternalId& e : mappings)
      if (e.cupti == id && (!pushed || e.pushed < *pushed)) pushed = e.pushed;
    if (pushed && first_call(*pushed) >= 0) return first_call(*pushed);
    return mode == PairingMode::kExternalOnly ? -1 : first_call(id);
  }
};

// The same call for every record as the rule written out, on many small
// random files with takeovers, shared ids and id 0.
TEST_CASE("correlation join: the rule on random files", "[correlation_join]") {
  std::mt19937_64 random(31);
  for (int file = 0; file < 300; ++file) {
    const bool external_only = file % 3 == 0;
    // An older gprof pushed ids from 1, a newer one above CUPTI's.
    const uint64_t pushed_base = external_only ? 1 : kPushedIdBase;
    Input in;
    Reference reference;
    const int calls = static_cast<int>(random() % 40);
    for (int i = 0; i < calls; ++i) {
      const bool pushed = random() % 3 == 0;
      const uint64_t id = random() % 7 == 0 ? 0 : (pushed ? pushed_base : 0) + random() % 30;
      const uint64_t start = random() % 1000;
      reference.calls.push_back({id, start, in.calls_added});
      in.call(id, start);
    }
    const int mappings = static_cast<int>(random() % 10);
    for (int i = 0; i < mappings; ++i) {
      const ExternalId e{1 + random() % 30, pushed_base + random() % 30};
      reference.mappings.push_back(e);
      in.externals.add(e);
    }
    const int records = static_cast<int>(random() % 40);
    std::vector<uint64_t> ids;
    for (int i = 0; i < records; ++i) {
      const uint64_t id = random() % 9 == 0 ? 0 : random() % 30;
      ids.push_back(id);
      in.record(id);
    }
    const PairingMode mode = external_only ? PairingMode::kExternalOnly : PairingMode::kCorrelation;
    const Told told = in.join(mode);
    REQUIRE(told.call_of.size() == ids.size());
    for (uint32_t seq = 0; seq < ids.size(); ++seq) {
      INFO("file " << file << ", record " << seq << ", id " << ids[seq]);
      CHECK(told.call_of.at(seq) == reference.call_of(ids[seq], mode));
    }
    CHECK(told.owners.size() + told.others.size() == static_cast<size_t>(calls));
  }
}

}  // namespace
}  // namespace gprof::analysis
