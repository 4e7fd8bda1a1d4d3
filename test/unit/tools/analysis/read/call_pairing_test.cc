#include "tools/analysis/read/call_pairing.h"

#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
namespace {

struct Call {
  uint64_t correlation;
  uint64_t start_ns;
  uint32_t index;
};
struct Gpu {
  uint64_t correlation;
  uint64_t start;
  uint32_t seq;
  uint64_t start_ns() const { return start; }
  void unwrap(uint64_t id) { correlation = id; }
};

// A file's calls, mappings and GPU records, paired: for each record the
// start of the call that issued it. The sorters keep three records, so that
// every one of them spills and merges runs.
class File {
 public:
  void call(uint64_t correlation, uint64_t start) {
    pairing_.add_call(Call{correlation, start, calls_++});
  }
  void external(uint64_t cupti, uint64_t pushed) { pairing_.add_external(cupti, pushed); }
  // A GPU record of `correlation` that started at `start`: its number.
  uint32_t gpu(uint64_t correlation, uint64_t start = 0) {
    pairing_.add_gpu(Gpu{correlation, start, records_});
    starts_.emplace_back();
    return records_++;
  }
  void pair(std::optional<PairingMode> mode = std::nullopt) {
    struct Visit {
      std::vector<std::optional<uint64_t>>& starts;
      uint64_t owner_start = 0;
      void owner(const Call& c) { owner_start = c.start_ns; }
      void issued(const Gpu& g) { starts[g.seq] = owner_start; }
      void owned() {}
      void other(const Call&) {}
      void unpaired(const Gpu&) {}
    } visit{starts_};
    pairing_.pair(mode.value_or(PairingMode::kCorrelation), visit);
  }
  // The start of the call that issued record `seq`; nullopt: none did.
  std::optional<uint64_t> call_of(uint32_t seq) const { return starts_.at(seq); }
  const CallPairing<Call, Gpu>& pairing() const { return pairing_; }

 private:
  CallPairing<Call, Gpu> pairing_{SortResources{3 * sizeof(Call), false, 1}};
  std::vector<std::optional<uint64_t>> starts_;
  uint32_t calls_ = 0;
  uint32_t records_ = 0;
};

constexpr std::nullopt_t kNone = std::nullopt;

// A file whose CUPTI status says gprof pushed ids around its calls.
std::optional<pb::CuptiStatus> external_state() {
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  return status;
}
constexpr uint64_t kBase = kPushedIdBase;

TEST_CASE("call pairing: by correlation id, in any order", "[call_pairing]") {
  File file;
  const uint32_t a = file.gpu(10), b = file.gpu(30), c = file.gpu(20), d = file.gpu(0);
  file.call(30, 300);
  file.call(10, 100);
  file.call(0, 50);  // no correlation: never pairs
  file.pair();
  CHECK(file.call_of(a) == 100u);
  CHECK(file.call_of(b) == 300u);
  CHECK(file.call_of(c) == kNone);
  CHECK(file.call_of(d) == kNone);
}

TEST_CASE("call pairing: through external correlations", "[call_pairing]") {
  File file;
  file.call(kBase + 1, 100);  // the ids gprof pushed
  file.call(kBase + 2, 200);
  file.call(7, 700);
  file.external(7, kBase + 1);  // CUPTI id -> pushed id
  file.external(8, kBase + 2);
  const uint32_t seven = file.gpu(7), eight = file.gpu(8), pushed = file.gpu(kBase + 2),
                 nine = file.gpu(9);
  file.pair();
  CHECK(file.pairing().external_count() == 2);
  // A mapping wins over a call that happens to carry the CUPTI id itself.
  CHECK(file.call_of(seven) == 100u);
  CHECK(file.call_of(eight) == 200u);
  // Without a mapping, the id itself.
  CHECK(file.call_of(pushed) == 200u);
  CHECK(file.call_of(nine) == kNone);
}

TEST_CASE("call pairing: a mapping to no call falls back to the id itself", "[call_pairing]") {
  File file;
  file.call(5, 500);
  file.external(5, kBase + 99);
  const uint32_t five = file.gpu(5);
  file.pair();
  CHECK(file.call_of(five) == 500u);
}

TEST_CASE("call pairing: of two calls with one correlation, the first wins", "[call_pairing]") {
  File file;
  file.call(4, 200);
  file.call(4, 100);
  const uint32_t four = file.gpu(4);
  file.pair();
  CHECK(file.call_of(four) == 100u);
}

TEST_CASE("call pairing: external mode pairs only through external correlations",
          "[call_pairing]") {
  // An older gprof pushed 1 and 2 around the two calls it saw; CUPTI
  // numbered those calls 5 and 6 and a library's driver launch, which gprof
  // never saw, 2.
  File file;
  file.call(1, 100);
  file.call(2, 200);
  file.external(5, 1);
  file.external(6, 2);
  CHECK(file.pairing().mode(external_state()) == PairingMode::kExternalOnly);
  CHECK(file.pairing().mode(std::nullopt) == PairingMode::kCorrelation);
  const uint32_t five = file.gpu(5), six = file.gpu(6), two = file.gpu(2), one = file.gpu(1);
  file.pair(file.pairing().mode(external_state()));
  CHECK(file.call_of(five) == 100u);
  CHECK(file.call_of(six) == 200u);
  // The library's kernel carries CUPTI id 2: not the call that pushed 2.
  CHECK(file.call_of(two) == kNone);
  CHECK(file.call_of(one) == kNone);
  // A mapping to a call the file does not hold pairs with nothing.
  File lost;
  lost.call(7, 100);
  lost.external(7, 99);
  const uint32_t seven = lost.gpu(7);
  lost.pair(PairingMode::kExternalOnly);
  CHECK(lost.call_of(seven) == kNone);
}

TEST_CASE("call pairing: a takeover's pushed ids above CUPTI's pair beside the calls before it",
          "[call_pairing]") {
  // Before the yield gprof recorded CUPTI's ids 4 and 9; after it, it pushed
  // kPushedIdBase + 1 and + 2 around its calls, which CUPTI numbered 14 and
  // 19; a library's driver launch after the yield is CUPTI's 16.
  File file;
  file.call(4, 100);
  file.call(9, 200);
  file.call(kBase + 1, 300);
  file.call(kBase + 2, 400);
  file.external(14, kBase + 1);
  file.external(19, kBase + 2);
  // The mode even a file in EXTERNAL_CORRELATION state pairs in.
  CHECK(file.pairing().mode(external_state()) == PairingMode::kCorrelation);
  const uint32_t four = file.gpu(4), nine = file.gpu(9), fourteen = file.gpu(14),
                 nineteen = file.gpu(19), sixteen = file.gpu(16);
  file.pair(file.pairing().mode(external_state()));
  CHECK(file.call_of(four) == 100u);
  CHECK(file.call_of(nine) == 200u);
  CHECK(file.call_of(fourteen) == 300u);
  CHECK(file.call_of(nineteen) == 400u);
  CHECK(file.call_of(sixteen) == kNone);
  CHECK(file.pairing().call_unwrap() == nullptr);  // the pushed ids are no wrap
}

TEST_CASE("call pairing: 32-bit CUPTI ids that wrap are unwrapped", "[call_pairing]") {
  // Calls 2^30 ids apart, so that the fifth, at t=500, has id 1 again.
  constexpr uint64_t kStep = uint64_t{1} << 30;
  File file;
  for (uint64_t i = 0; i < 6; ++i) file.call((1 + i * kStep) & 0xFFFFFFFFu, 100 * (i + 1));
  // GPU work of id 1 that ran right after the first call is the first's...
  const uint32_t first = file.gpu(1, 150);
  // ...and after the fifth call, the fifth's (the first match used to win).
  const uint32_t fifth = file.gpu(1, 550);
  const uint32_t sixth = file.gpu(1 + kStep, 650);
  const uint32_t fourth = file.gpu(1 + 3 * kStep, 450);
  file.pair();
  REQUIRE(file.pairing().call_unwrap() != nullptr);
  CHECK(file.pairing().call_unwrap()->at(1, 500) == 1 + 4 * kStep);
  CHECK(file.call_of(first) == 100u);
  CHECK(file.call_of(fifth) == 500u);
  CHECK(file.call_of(sixth) == 600u);
  CHECK(file.call_of(fourth) == 400u);
}

TEST_CASE("call pairing: a takeover after the calls' ids wrapped maps in the wrap they reached",
          "[call_pairing]") {
  // CUPTI ids 0xFFFFFFF0 and 0xFFFFFFFA, then 4 (wrapped) before the yield;
  // after it, the pushed ids' calls, which CUPTI numbered 9 and 14. Found:
  // the first mapping was taken as its own reference, below the calls'
  // wrap, and every GPU record from the takeover on (unwrapped to 2^32 + 9)
  // missed it (gpuprof-gen --first-correlation 4294967000 --takeover 2:4:
  // 57214 of 58166 unpaired).
  File file;
  file.call(0xFFFFFFF0u, 100);
  file.call(0xFFFFFFFAu, 200);
  file.call(4, 300);
  file.call(kBase + 1, 400);
  file.call(kBase + 2, 500);
  file.external(9, kBase + 1);
  file.external(14, kBase + 2);
  const uint32_t before = file.gpu(0xFFFFFFFAu, 250), wrapped = file.gpu(4, 350),
                 nine = file.gpu(9, 450), fourteen = file.gpu(14, 550);
  file.pair();
  CHECK(file.pairing().call_unwrap() != nullptr);
  CHECK(file.call_of(before) == 200u);
  CHECK(file.call_of(wrapped) == 300u);
  CHECK(file.call_of(nine) == 400u);
  CHECK(file.call_of(fourteen) == 500u);
}

TEST_CASE("call pairing: a takeover's CUPTI ids wrap on their own", "[call_pairing]") {
  // Another tool holds CUPTI from early on (kineto never gives it back):
  // the calls' own ids stay small, the takeover's run past 2^32. Found by
  // review: the mappings were unwrapped only when the calls' ids wrapped,
  // and a record after the wrap paired with a call of the wrap before
  // (the smaller pushed id of two mappings with one raw id).
  constexpr uint64_t kStep = uint64_t{1} << 30;
  for (const bool cupti_calls : {true, false}) {
    File file;
    if (cupti_calls) {
      file.call(5, 10);
      file.call(6, 20);
    }
    for (uint64_t i = 0; i < 6; ++i) {
      file.call(kBase + i, 100 * (i + 1));
      file.external((7 + i * kStep) & 0xFFFFFFFFu, kBase + i);
    }
    const uint32_t first = file.gpu(7, 120), fifth = file.gpu(7, 520),
                   sixth = file.gpu(7 + kStep, 620);
    file.pair();
    INFO("calls with CUPTI's ids: " << cupti_calls);
    CHECK(file.call_of(first) == 100u);
    CHECK(file.call_of(fifth) == 500u);
    CHECK(file.call_of(sixth) == 600u);
  }
}

TEST_CASE("call pairing: a takeover longer than half the id space goes on from the calls' wrap",
          "[call_pairing]") {
  // Calls 2^30 ids apart wrap at the fifth (t=500); then a takeover whose
  // pushing calls CUPTI numbered on, 2^30 apart, past a second wrap. Found
  // by review: GPU records unwrapped against the calls' ids only, which the
  // takeover does not advance, and paired with a call from before it.
  constexpr uint64_t kStep = uint64_t{1} << 30;
  File file;
  for (uint64_t i = 0; i < 5; ++i) file.call((1 + i * kStep) & 0xFFFFFFFFu, 100 * (i + 1));
  for (uint64_t j = 0; j < 4; ++j) {
    file.call(kBase + j, 600 + 100 * j);
    file.external((1 + (5 + j) * kStep) & 0xFFFFFFFFu, kBase + j);
  }
  const uint32_t before = file.gpu(1, 550), third = file.gpu(1 + 3 * kStep, 850),
                 last = file.gpu(1, 950);
  file.pair();
  CHECK(file.call_of(before) == 500u);
  CHECK(file.call_of(third) == 800u);
  CHECK(file.call_of(last) == 900u);
}

TEST_CASE("call pairing: an older gprof's small pushed ids pair in correlation mode too",
          "[call_pairing]") {
  // A file of a gprof that pushed ids from 1 and whose last status is not
  // EXTERNAL_CORRELATION (taken over at the end) pairs in kCorrelation: its
  // mappings' CUPTI ids, far above the pushed ids, are no reason to unwrap
  // the calls, whose small pushed ids would then no longer be the ones the
  // mappings name (found by review: 1 of 6 paired).
  File file;
  std::vector<uint32_t> records;
  for (uint64_t k = 1; k <= 6; ++k) {
    file.call(k, 100 * k);
    file.external(3000000000u + k, k);
    records.push_back(file.gpu(3000000000u + k, 100 * k + 50));
  }
  CHECK(file.pairing().mode(std::nullopt) == PairingMode::kCorrelation);
  file.pair();
  for (uint64_t k = 1; k <= 6; ++k) CHECK(file.call_of(records[k - 1]) == 100 * k);
  CHECK(file.pairing().call_unwrap() == nullptr);
}

TEST_CASE("call pairing: a mapping whose call the file lacks does not shift every id",
          "[call_pairing]") {
  // A long run (ids from 10 to 2.9e9) before a takeover whose first mapping
  // names no call of the file: it has no time. Taken as handed out first,
  // its id 3e9 made the first call's 10 2^32 + 10, and every id after it
  // 2^32 higher than recorded (found by review); it goes just before the
  // first mapping with a time instead.
  File file;
  file.call(10, 100);
  file.call(1000000000, 200);
  file.call(2000000000, 300);
  file.call(2900000000u, 400);
  file.call(kBase + 2, 500);
  file.external(3000000000u, kBase + 1);  // its call is not in the file
  file.external(3000000001u, kBase + 2);
  const uint32_t ten = file.gpu(10, 150), mapped = file.gpu(3000000001u, 550);
  file.pair();
  CHECK(file.pairing().call_unwrap() == nullptr);
  CHECK(file.call_of(ten) == 100u);
  CHECK(file.call_of(mapped) == 500u);
}

TEST_CASE("call pairing: external mode unwraps CUPTI ids in push order", "[call_pairing]") {
  constexpr uint64_t kStep = uint64_t{1} << 30;
  File file;
  for (uint64_t i = 0; i < 6; ++i) {
    file.call(i + 1, 100 * (i + 1));                      // pushed ids never wrap
    file.external((7 + i * kStep) & 0xFFFFFFFFu, i + 1);  // CUPTI's do
  }
  const uint32_t first = file.gpu(7, 120), fifth = file.gpu(7, 520);
  file.pair(PairingMode::kExternalOnly);
  CHECK(file.call_of(first) == 100u);
  CHECK(file.call_of(fifth) == 500u);
}

}  // namespace
}  // namespace gprof::analysis
