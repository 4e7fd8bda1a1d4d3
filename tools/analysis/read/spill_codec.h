// How the spill sorter (spill_sorter.h) writes a run's fixed-size records to
// its temporary file: each record against the one before it in the run,
// word by word (8 bytes), keeping the low bytes that carry anything, of the
// word XOR the previous record's or of the word itself, whichever are fewer.
// A run is sorted, so neighbours share their track, the high bytes of their
// times and many of their fields: a trace Item (128 bytes) takes about a
// quarter of its size, and the temporary files' page-cache copies, most of
// the trace's system time at scale, shrink with it. Lossless for any
// trivially copyable record, padding included; no branch on the data, so
// that it costs a few instructions a word.
//
// A record: a header of 4 bits per word (c = 0..8: the word XOR the
// previous record's, its low c bytes follow; c = 9..15: the word itself,
// its low c - 9 bytes follow), then those bytes, word after word.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

static_assert(std::endian::native == std::endian::little, "spill_codec.h: a record's words");

namespace gprof::analysis {

template <typename T>
class SpillCodec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr size_t kWords = (sizeof(T) + 7) / 8;
  static constexpr size_t kHeader = (kWords + 1) / 2;
  static constexpr size_t kHeaderWords = (kWords + 15) / 16;
  // The most bytes one record takes.
  static constexpr size_t kMaxEncoded = kHeader + kWords * 8;
  // Bytes past a record's end that encode() may write and decode() may
  // read (their values do not matter): whole words are moved.
  static constexpr size_t kSlack = 8;

  // Writes `record`, after `previous` (a zeroed record before a run's first),
  // at `out` (room for kMaxEncoded + kSlack); returns the end of what it wrote.
  static char* encode(const T& previous, const T& record, char* out) {
    uint64_t prev[kWords] = {};
    uint64_t cur[kWords] = {};
    std::memcpy(prev, &previous, sizeof(T));
    std::memcpy(cur, &record, sizeof(T));
    // Built in registers, 16 words' codes each, then stored.
    uint64_t header[kHeaderWords] = {};
    char* at = out + kHeader;
#pragma GCC unroll 32
    for (size_t i = 0; i < kWords; ++i) {
      const uint64_t changed = cur[i] ^ prev[i];
      const unsigned as_changed = length(changed);
      const unsigned as_is = length(cur[i]);
      const bool raw = as_is < as_changed && as_is <= 6;
      const unsigned code = raw ? 9 + as_is : as_changed;
      const uint64_t value = raw ? cur[i] : changed;
      std::memcpy(at, &value, 8);
      at += kTable.length[code];
      header[i / 16] |= uint64_t{code} << (4 * (i % 16));
    }
    std::memcpy(out, header, kHeader);  // little-endian: word 0 in the low nibble
    return at;
  }

  // Reads the record after `record` (the previous one, or zeroed before a
  // run's first) from `in`, in place; returns the end of what it read.
  static const char* decode(T& record, const char* in) {
    uint64_t words[kWords] = {};
    std::memcpy(words, &record, sizeof(T));
    uint64_t header[kHeaderWords] = {};
    std::memcpy(header, in, kHeader);
    const char* at = in + kHeader;
#pragma GCC unroll 32
    for (size_t i = 0; i < kWords; ++i) {
      const unsigned code = header[i / 16] >> (4 * (i % 16)) & 15;
      uint64_t value;
      std::memcpy(&value, at, 8);
      at += kTable.length[code];
      words[i] = (value & kTable.mask[code]) ^ (words[i] & kTable.keep[code]);
    }
    std::memcpy(&record, words, sizeof(T));
    return at;
  }

 private:
  // Bytes up to the highest one that is not zero.
  static unsigned length(uint64_t v) {
    return (64 - std::countl_zero(v) + 7) / 8;
  }

  struct Table {
    std::array<uint8_t, 16> length;
    std::array<uint64_t, 16> mask;  // of the bytes that follow
    std::array<uint64_t, 16> keep;  // of the previous word: all for XOR, none for as is
  };
  static constexpr Table kTable = [] {
    Table t{};
    for (unsigned c = 0; c < 16; ++c) {
      const unsigned n = c <= 8 ? c : c - 9;
      t.length[c] = static_cast<uint8_t>(n);
      t.mask[c] = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
      t.keep[c] = c <= 8 ? ~uint64_t{0} : 0;
    }
    return t;
  }();
};

}  // namespace gprof::analysis
