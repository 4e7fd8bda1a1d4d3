// The spill sorter's record encoding (spill_codec.h): every byte comes back,
// whatever the record's size and contents, and neighbours that share most of
// their bytes take few.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tools/analysis/read/spill_codec.h"
#include "tools/trace/trace_item.h"

namespace gprof::analysis {
namespace {

template <typename T>
std::vector<char> encode_all(const std::vector<T>& records) {
  std::vector<char> out(records.size() * analysis::SpillCodec<T>::kMaxEncoded +
                        analysis::SpillCodec<T>::kSlack);
  T previous{};
  char* at = out.data();
  for (const T& r : records) {
    char* end = analysis::SpillCodec<T>::encode(previous, r, at);
    REQUIRE(static_cast<size_t>(end - at) <= analysis::SpillCodec<T>::kMaxEncoded);
    at = end;
    previous = r;
  }
  out.resize(static_cast<size_t>(at - out.data()));
  return out;
}

template <typename T>
void round_trip(const std::vector<T>& records) {
  std::vector<char> bytes = encode_all(records);
  const size_t size = bytes.size();
  bytes.resize(size + analysis::SpillCodec<T>::kSlack);  // read past the end, not used
  T current{};
  const char* at = bytes.data();
  for (size_t i = 0; i < records.size(); ++i) {
    at = analysis::SpillCodec<T>::decode(current, at);
    INFO("record " << i);
    REQUIRE(std::memcmp(&current, &records[i], sizeof(T)) == 0);
  }
  CHECK(at == bytes.data() + size);
}

struct Odd {
  std::array<uint8_t, 21> bytes;  // not a whole number of words
};

TEST_CASE("spill codec: random records of any size come back byte for byte") {
  std::mt19937_64 rng(7);
  // Bytes that are often zero, often as before, sometimes anything.
  const auto byte = [&](uint8_t before) -> uint8_t {
    switch (rng() % 4) {
      case 0:
        return 0;
      case 1:
        return before;
      case 2:
        return 0xff;
      default:
        return static_cast<uint8_t>(rng());
    }
  };
  std::vector<Odd> odd(2000);
  std::vector<std::array<uint64_t, 16>> words(2000);
  for (size_t i = 0; i < odd.size(); ++i) {
    for (size_t b = 0; b < odd[i].bytes.size(); ++b)
      odd[i].bytes[b] = byte(i ? odd[i - 1].bytes[b] : 0);
    for (size_t w = 0; w < 16; ++w) {
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b)
        v |= uint64_t{byte(i ? static_cast<uint8_t>(words[i - 1][w] >> (8 * b)) : 0)} << (8 * b);
      words[i][w] = v;
    }
  }
  round_trip(odd);
  round_trip(words);
  round_trip(std::vector<Odd>(3, Odd{}));  // all zero: a header each
  CHECK(encode_all(std::vector<Odd>(3, Odd{})).size() == 3 * analysis::SpillCodec<Odd>::kHeader);
}

TEST_CASE("spill codec: a sorted run of trace items takes a fraction of its size") {
  using namespace trace;  // its events: the records spilled most
  std::vector<Item> items;
  for (uint64_t i = 0; i < 1000; ++i) {
    Item e{};
    e.start_ns = 1'700'000'000'000'000 + 1500 * i;
    e.dur_ns = 700 + i % 13;
    e.ref = i;
    e.track = 2;
    e.kind = EventKind::kCall;
    e.call = CallPart{1000 + i, 0x7f0000001000, 0, {64, 1, 1}, {256, 1, 1}, 0, 5, 0, ApiId{}};
    items.push_back(e);
  }
  round_trip(items);
  const size_t bytes = encode_all(items).size();
  CHECK(bytes < items.size() * sizeof(Item) / 4);
}

}  // namespace
}  // namespace gprof::analysis
