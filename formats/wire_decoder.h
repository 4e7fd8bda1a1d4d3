// Protobuf wire-format reading without libprotobuf, for the record columns
// of a frame (formats/column_decoder.h). The encoding is the one described at
// https://protobuf.dev/programming-guides/encoding/: "Base 128 Varints",
// "Message Structure" (tag = field number << 3 | wire type), "Length-Delimited
// Records" and "Packed Repeated Fields" (a length, then the varints back to
// back). Strict on purpose: whatever it cannot read exactly as libprotobuf
// reads it, it refuses (nullptr / false), and the caller leaves the frame to
// libprotobuf, which decides. The values it does read match libprotobuf
// 3.21's (parse_context.h: VarintParse, ReadPackedVarint, ReadTag, ReadSize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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
struct AsUint32 {
  uint32_t operator()(uint64_t v) const { return static_cast<uint32_t>(v); }
};
struct AsSint32 {
  int32_t operator()(uint64_t v) const {
    const auto n = static_cast<uint32_t>(v);
    return static_cast<int32_t>((n >> 1) ^ (0u - (n & 1)));
  }
};
struct AsUint64 {
  uint64_t operator()(uint64_t v) const { return v; }
};
struct AsSint64 {
  int64_t operator()(uint64_t v) const { return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1))); }
};

// The packed varints of [p, end) into `out`, which has room for end - p
// values (each takes at least a byte). Returns how many, or -1 when one is
// malformed or crosses `end` (libprotobuf then fails the whole message).
//
// Most columns are small numbers (ids, dimensions, flags): eight bytes
// without a continuation bit are eight values, converted without a branch
// per byte.
template <typename T, typename Convert>
long decode_packed(const uint8_t* p, const uint8_t* end, T* out, Convert convert) {
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  T* o = out;
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);  // little-endian: byte k is bits 8k..8k+7
    const uint64_t continued = word & kHighBits;
    const int singles = continued == 0 ? 8 : __builtin_ctzll(continued) >> 3;
    for (int k = 0; k < singles; ++k) o[k] = convert((word >> (8 * k)) & 0xFF);
    o += singles;
    p += singles;
    if (singles == 8) continue;
    uint64_t value = 0;
    p = read_varint(p, end, value);
    if (p == nullptr) return -1;
    *o++ = convert(value);
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
