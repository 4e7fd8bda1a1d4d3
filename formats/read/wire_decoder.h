// Protobuf wire-format reading without libprotobuf, for the record columns
// of a frame (formats/read/column_decoder.h). The encoding is the one described at
// https://protobuf.dev/programming-guides/encoding/: "Base 128 Varints",
// "Message Structure" (tag = field number << 3 | wire type), "Length-Delimited
// Records" and "Packed Repeated Fields" (a length, then the varints back to
// back). Strict on purpose: whatever it cannot read exactly as libprotobuf
// reads it, it refuses (nullptr / false), and the caller leaves the frame to
// libprotobuf, which decides. The values it does read match libprotobuf
// 3.21's (parse_context.h: VarintParse, ReadPackedVarint, ReadTag, ReadSize).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gprof::wire {

inline constexpr uint32_t kVarint = 0;
inline constexpr uint32_t kFixed64 = 1;
inline constexpr uint32_t kLengthDelimited = 2;
inline constexpr uint32_t kFixed32 = 5;

// One varint of at most 10 bytes from [p, end); nullptr when it is longer or
// runs past `end`. Bits past the 64th are dropped, as libprotobuf drops them.
inline const uint8_t* read_varint(const uint8_t* p, const uint8_t* end, uint64_t& value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p == end) return nullptr;
    const uint64_t byte = *p++;
    v |= (byte & 0x7F) << shift;
    if (byte < 0x80) {
      value = v;
      return p;
    }
  }
  return nullptr;
}

// A varint of at most `max_bytes` whose last byte is not a zero padding byte
// (the shortest encoding, the only one any writer produces). Used for tags and
// lengths, where libprotobuf's limits (5 bytes, 31 bits) are stricter than
// for values: refusing every other form leaves those cases to libprotobuf.
inline const uint8_t* read_short_varint(const uint8_t* p, const uint8_t* end, int max_bytes,
                                        uint64_t& value) {
  const uint8_t* start = p;
  const uint8_t* after = read_varint(p, end, value);
  if (after == nullptr || after - start > max_bytes) return nullptr;
  if (after - start > 1 && after[-1] == 0) return nullptr;
  return after;
}

// Tag of a field: field number and wire type. Refuses field number 0 and the
// group wire types (3, 4), which libprotobuf rejects or skips by nesting.
inline const uint8_t* read_tag(const uint8_t* p, const uint8_t* end, uint32_t& field,
                               uint32_t& wire_type) {
  uint64_t tag = 0;
  p = read_short_varint(p, end, 5, tag);
  if (p == nullptr || tag > UINT32_MAX) return nullptr;
  field = static_cast<uint32_t>(tag >> 3);
  wire_type = static_cast<uint32_t>(tag & 7);
  if (field == 0 || wire_type == 3 || wire_type == 4 || wire_type > 5) return nullptr;
  return p;
}

// The length of a length-delimited field, which must fit in [p, end).
inline const uint8_t* read_length(const uint8_t* p, const uint8_t* end, size_t& length) {
  uint64_t value = 0;
  p = read_short_varint(p, end, 5, value);
  if (p == nullptr || value > INT32_MAX || value > static_cast<uint64_t>(end - p)) return nullptr;
  length = static_cast<size_t>(value);
  return p;
}

// Past the value of a field of `wire_type` (0, 1, 2 or 5).
inline const uint8_t* skip_value(const uint8_t* p, const uint8_t* end, uint32_t wire_type) {
  switch (wire_type) {
    case kVarint: {
      uint64_t ignored = 0;
      return read_varint(p, end, ignored);
    }
    case kFixed64:
      return end - p >= 8 ? p + 8 : nullptr;
    case kFixed32:
      return end - p >= 4 ? p + 4 : nullptr;
    case kLengthDelimited: {
      size_t length = 0;
      p = read_length(p, end, length);
      return p == nullptr ? nullptr : p + length;
    }
    default:
      return nullptr;
  }
}

// How libprotobuf turns a varint into a field's value (wire_format_lite.h):
// 32-bit fields keep the low 32 bits; sint32/sint64 undo the zig-zag mapping.
// eight() does the same for eight one-byte varints at once (values below
// 128), in vector registers: SSE2 (any x86-64) widens the bytes with unpacks,
// since GCC turns a conversion of an 8-byte vector into a byte-by-byte loop;
// elsewhere GCC's vector extensions.
#if defined(__SSE2__)
namespace sse2 {
// The word's eight bytes, zero-extended to 16 bits.
inline __m128i widen16(uint64_t word) {
  return _mm_unpacklo_epi8(_mm_cvtsi64_si128(static_cast<long long>(word)), _mm_setzero_si128());
}
// Zig-zag of one-byte values, in bytes: 2n -> n, 2n+1 -> -n-1 (SSE2 shifts
// 16-bit lanes only: the bit shifted in from the next byte is masked off).
inline __m128i unzigzag8(uint64_t word) {
  const __m128i b = _mm_cvtsi64_si128(static_cast<long long>(word));
  const __m128i half = _mm_and_si128(_mm_srli_epi16(b, 1), _mm_set1_epi8(0x7F));
  return _mm_xor_si128(half, _mm_sub_epi8(_mm_setzero_si128(), _mm_and_si128(b, _mm_set1_epi8(1))));
}
inline void store(void* out, __m128i v) {
  _mm_storeu_si128(static_cast<__m128i*>(out), v);
}
}  // namespace sse2

struct AsUint32 {
  uint32_t operator()(uint64_t v) const { return static_cast<uint32_t>(v); }
  void eight(uint64_t word, uint32_t* out) const {
    const __m128i h = sse2::widen16(word);
    sse2::store(out, _mm_unpacklo_epi16(h, _mm_setzero_si128()));
    sse2::store(out + 4, _mm_unpackhi_epi16(h, _mm_setzero_si128()));
  }
};
struct AsSint32 {
  int32_t operator()(uint64_t v) const {
    const auto n = static_cast<uint32_t>(v);
    return static_cast<int32_t>((n >> 1) ^ (0u - (n & 1)));
  }
  void eight(uint64_t word, int32_t* out) const {
    const __m128i v = sse2::unzigzag8(word);
    const __m128i sign = _mm_cmpgt_epi8(_mm_setzero_si128(), v);  // 0xFF where negative
    const __m128i h = _mm_unpacklo_epi8(v, sign);
    const __m128i sign16 = _mm_unpacklo_epi8(sign, sign);
    sse2::store(out, _mm_unpacklo_epi16(h, sign16));
    sse2::store(out + 4, _mm_unpackhi_epi16(h, sign16));
  }
};
struct AsUint64 {
  uint64_t operator()(uint64_t v) const { return v; }
  void eight(uint64_t word, uint64_t* out) const {
    const __m128i z = _mm_setzero_si128();
    const __m128i h = sse2::widen16(word);
    const __m128i lo = _mm_unpacklo_epi16(h, z);
    const __m128i hi = _mm_unpackhi_epi16(h, z);
    sse2::store(out, _mm_unpacklo_epi32(lo, z));
    sse2::store(out + 2, _mm_unpackhi_epi32(lo, z));
    sse2::store(out + 4, _mm_unpacklo_epi32(hi, z));
    sse2::store(out + 6, _mm_unpackhi_epi32(hi, z));
  }
};
struct AsSint64 {
  int64_t operator()(uint64_t v) const { return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1))); }
  void eight(uint64_t word, int64_t* out) const {
    const __m128i v = sse2::unzigzag8(word);
    const __m128i sign = _mm_cmpgt_epi8(_mm_setzero_si128(), v);
    const __m128i h = _mm_unpacklo_epi8(v, sign);
    const __m128i sign16 = _mm_unpacklo_epi8(sign, sign);
    const __m128i lo = _mm_unpacklo_epi16(h, sign16);
    const __m128i hi = _mm_unpackhi_epi16(h, sign16);
    const __m128i sign_lo = _mm_unpacklo_epi16(sign16, sign16);
    const __m128i sign_hi = _mm_unpackhi_epi16(sign16, sign16);
    sse2::store(out, _mm_unpacklo_epi32(lo, sign_lo));
    sse2::store(out + 2, _mm_unpackhi_epi32(lo, sign_lo));
    sse2::store(out + 4, _mm_unpacklo_epi32(hi, sign_hi));
    sse2::store(out + 6, _mm_unpackhi_epi32(hi, sign_hi));
  }
};
#else
using Bytes8 = uint8_t __attribute__((vector_size(8)));
using Signed8 = int8_t __attribute__((vector_size(8)));
using Uint32x8 = uint32_t __attribute__((vector_size(32)));
using Int32x8 = int32_t __attribute__((vector_size(32)));
using Uint64x8 = uint64_t __attribute__((vector_size(64)));
using Int64x8 = int64_t __attribute__((vector_size(64)));

inline Bytes8 bytes8(uint64_t word) {
  Bytes8 b;
  std::memcpy(&b, &word, sizeof b);
  return b;
}
// Zig-zag of one-byte values, in bytes: 2n -> n, 2n+1 -> -n-1.
inline Signed8 unzigzag8(uint64_t word) {
  const Bytes8 b = bytes8(word);
  return reinterpret_cast<Signed8>((b >> 1) ^ (0 - (b & 1)));
}
template <typename Vector, typename T>
void store8(const Vector& v, T* out) {
  static_assert(sizeof v == 8 * sizeof(T));
  std::memcpy(out, &v, sizeof v);
}

struct AsUint32 {
  uint32_t operator()(uint64_t v) const { return static_cast<uint32_t>(v); }
  void eight(uint64_t word, uint32_t* out) const {
    store8(__builtin_convertvector(bytes8(word), Uint32x8), out);
  }
};
struct AsSint32 {
  int32_t operator()(uint64_t v) const {
    const auto n = static_cast<uint32_t>(v);
    return static_cast<int32_t>((n >> 1) ^ (0u - (n & 1)));
  }
  void eight(uint64_t word, int32_t* out) const {
    store8(__builtin_convertvector(unzigzag8(word), Int32x8), out);
  }
};
struct AsUint64 {
  uint64_t operator()(uint64_t v) const { return v; }
  void eight(uint64_t word, uint64_t* out) const {
    store8(__builtin_convertvector(bytes8(word), Uint64x8), out);
  }
};
struct AsSint64 {
  int64_t operator()(uint64_t v) const { return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1))); }
  void eight(uint64_t word, int64_t* out) const {
    store8(__builtin_convertvector(unzigzag8(word), Int64x8), out);
  }
};
#endif

inline constexpr uint64_t kHighBits = 0x8080808080808080ull;
inline constexpr uint64_t kLowBits = 0x7F7F7F7F7F7F7F7Full;

// take(word, stops, o, convert): the varints that end in `word` (8 bytes,
// little-endian) into o[0], o[1], ... (o moves past them), and the bytes
// they took. `stops` (~word & kHighBits, nonzero) has the top bit of each
// one's last byte. Two ways, neither with a loop over the bytes.
//
// InWord: a varint at a time, its 7-bit groups put side by side with
// shifts and masks.
struct InWord {
  template <typename T, typename Convert>
  size_t take(uint64_t word, uint64_t stops, T*& o, Convert convert) const {
    uint64_t done = 0;  // every bit of the varints taken so far
    do {
      const uint64_t through_stop = stops ^ (stops - 1);  // up to this one's last byte's top bit
      const uint64_t mine = through_stop ^ done;          // this varint's bytes
      done = through_stop;
      uint64_t x = (word & mine & kLowBits) >> __builtin_ctzll(mine);
      x = ((x & 0x7F007F007F007F00ull) >> 1) | (x & 0x007F007F007F007Full);  // 14 bits per 16
      x = ((x & 0x3FFF00003FFF0000ull) >> 2) | (x & 0x00003FFF00003FFFull);  // 28 bits per 32
      *o++ = convert(((x & 0x0FFFFFFF00000000ull) >> 4) | (x & 0x000000000FFFFFFFull));
      stops &= stops - 1;
    } while (stops != 0);
    // `done`'s top bit is the top bit of the last varint's last byte
    // (63 ^ clz is one bsr).
    return ((63 ^ static_cast<size_t>(__builtin_clzll(done))) >> 3) + 1;
  }
};

#if defined(__x86_64__)
// The 7-bit groups of each varint that ends in a word, by which of its bytes
// end one (bit k: byte k), in the order pext wants them: 256 × 64 bytes.
struct WordGroups {
  alignas(64) uint64_t of[8];
};
inline constexpr auto kWordGroups = [] {
  std::array<WordGroups, 256> table{};
  for (unsigned ends = 0; ends < 256; ++ends) {
    unsigned first = 0;  // the next varint's first byte
    unsigned count = 0;
    for (unsigned byte = 0; byte < 8; ++byte) {
      if ((ends >> byte & 1) == 0) continue;
      uint64_t groups = 0;
      for (unsigned b = first; b <= byte; ++b) groups |= uint64_t{0x7F} << (8 * b);
      table[ends].of[count++] = groups;
      first = byte + 1;
    }
  }
  return table;
}();

// Pext: BMI2's pext gathers a varint's 7-bit groups in one instruction where
// InWord takes a dozen, with masks from kWordGroups. How many and the bytes
// they take come from `stops` itself (popcnt, bsr), not from the table: the
// next word's load waits on them. Compiled for BMI2 and POPCNT: call it only
// where the CPU has them (column_decoder.cc), from code compiled for them
// too, so that it is inlined.
struct Pext {
  template <typename T, typename Convert>
  __attribute__((target("bmi2,popcnt"))) size_t take(uint64_t word, uint64_t stops, T*& o,
                                                     Convert convert) const {
    const uint64_t* groups = kWordGroups[_pext_u64(stops, kHighBits)].of;
    const auto count = static_cast<unsigned>(__builtin_popcountll(stops));
    // Four without a loop, whether the word ends one or four (o has room for
    // eight: see decode_packed); the rest in a loop.
    o[0] = convert(_pext_u64(word, groups[0]));
    o[1] = convert(_pext_u64(word, groups[1]));
    o[2] = convert(_pext_u64(word, groups[2]));
    o[3] = convert(_pext_u64(word, groups[3]));
    for (unsigned i = 4; i < count; ++i) o[i] = convert(_pext_u64(word, groups[i]));
    o += count;
    // Past the last one's last byte (63 ^ clz is one bsr).
    return ((63 ^ static_cast<size_t>(__builtin_clzll(stops))) >> 3) + 1;
  }
};
#endif

// The packed varints of [p, end) into `out`, which has room for end - p
// values (each takes at least a byte). Returns how many, or -1 when one is
// malformed or crosses `end` (libprotobuf then fails the whole message).
//
// Eight bytes at a time where they are available: every varint that ends in
// the word is assembled from it without a loop over its bytes, and eight
// bytes without a continuation bit are eight values (columns of small ids,
// dimensions and flags). Byte by byte only for varints longer than 8 bytes
// and for the last bytes of a column.
//
// `assemble` is InWord or Pext (above).
template <typename T, typename Convert, typename Assemble = InWord>
long decode_packed(const uint8_t* p, const uint8_t* end, T* out, Convert convert,
                   Assemble assemble = {}) {
  T* o = out;
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);  // little-endian: byte k is bits 8k..8k+7
    uint64_t stops = ~word & kHighBits;  // the top bit of each varint's last byte
    if (stops == kHighBits) {
      convert.eight(word, o);
      o += 8;
      p += 8;
      continue;
    }
    if (stops == 0) {  // longer than 8 bytes
      uint64_t value = 0;
      p = read_varint(p, end, value);
      if (p == nullptr) return -1;
      *o++ = convert(value);
      continue;
    }
    p += assemble.take(word, stops, o, convert);
  }
  while (p < end) {
    uint64_t value = 0;
    p = read_varint(p, end, value);
    if (p == nullptr) return -1;
    *o++ = convert(value);
  }
  return o - out;
}

}  // namespace gprof::wire
