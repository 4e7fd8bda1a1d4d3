// Appends one trace event's JSON to a Buffer without per-piece checks: the
// caller reserves an upper bound of the event's length up front, then the
// pieces (literals, numbers, pre-escaped strings) are copied through a raw
// pointer. This is the trace's hot loop (millions of events a second), where
// fmt's format-string parsing and per-append growth checks cost more than
// the writing.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "tools/trace/json_text.h"

namespace gprof::trace {

class JsonCursor {
 public:
  // Room for the fixed parts of any event and its numbers; strings come on top.
  static constexpr size_t kFixed = 1024;

  // At most `bound` bytes will be appended.
  JsonCursor(Buffer& buffer, size_t bound) : buffer_(buffer) {
    const size_t used = buffer.size();
    buffer.resize(used + bound);
    at_ = buffer.data() + used;
  }
  ~JsonCursor() { buffer_.resize(static_cast<size_t>(at_ - buffer_.data())); }
  JsonCursor(const JsonCursor&) = delete;
  JsonCursor& operator=(const JsonCursor&) = delete;

  void text(std::string_view s) {
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
  }
  void put(char c) { *at_++ = c; }

  // Written in place, last digits first, once the length is known: no
  // temporary and no memcpy of a length unknown at compile time.
  void number(uint64_t value) {
    if (value < 10) {
      *at_++ = static_cast<char>('0' + value);
      return;
    }
    char* p = at_ + digits(value);
    at_ = p;
    while (value >= 100) {
      p -= 2;
      std::memcpy(p, kPairs + (value % 100) * 2, 2);
      value /= 100;
    }
    if (value >= 10) {
      std::memcpy(p - 2, kPairs + value * 2, 2);
    } else {
      p[-1] = static_cast<char>('0' + value);
    }
  }
  void number(int64_t value) {
    if (value < 0) {
      put('-');
      number(~static_cast<uint64_t>(value) + 1);
    } else {
      number(static_cast<uint64_t>(value));
    }
  }
  void number(uint32_t value) { number(static_cast<uint64_t>(value)); }
  void number(int32_t value) { number(static_cast<int64_t>(value)); }

  // As append_microseconds: "1234.567", "-0.005".
  void microseconds(int64_t ns) {
    uint64_t magnitude = static_cast<uint64_t>(ns);
    if (ns < 0) {
      put('-');
      magnitude = ~magnitude + 1;
    }
    number(magnitude / 1000);
    const uint64_t fraction = magnitude % 1000;
    at_[0] = '.';
    at_[1] = static_cast<char>('0' + fraction / 100);
    std::memcpy(at_ + 2, kPairs + (fraction % 100) * 2, 2);
    at_ += 4;
  }

  // Lower-case hexadecimal, no prefix, as fmt's "{:x}".
  void hex(uint64_t value) {
    char digits[16];
    char* end = digits + sizeof(digits);
    char* p = end;
    do {
      *--p = "0123456789abcdef"[value & 15];
      value >>= 4;
    } while (value != 0);
    text(std::string_view(p, static_cast<size_t>(end - p)));
  }

  // Decimal digits of a value (1 to 20): log10 from the bit width
  // (1233 / 4096 ~ log10(2)), corrected by one comparison.
  static int digits(uint64_t value) {
    static constexpr uint64_t kPowers[20] = {1ull,
                                             10ull,
                                             100ull,
                                             1000ull,
                                             10000ull,
                                             100000ull,
                                             1000000ull,
                                             10000000ull,
                                             100000000ull,
                                             1000000000ull,
                                             10000000000ull,
                                             100000000000ull,
                                             1000000000000ull,
                                             10000000000000ull,
                                             100000000000000ull,
                                             1000000000000000ull,
                                             10000000000000000ull,
                                             100000000000000000ull,
                                             1000000000000000000ull,
                                             10000000000000000000ull};
    const int guess = (std::bit_width(value) * 1233) >> 12;  // digits - 1, or one less
    return guess + (guess < 20 && value >= kPowers[guess] ? 1 : 0) + (value == 0 ? 1 : 0);
  }

  // Where fmt writes what is rare enough to format (floating point).
  char*& at() { return at_; }

 private:
  static constexpr const char* kPairs =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

  Buffer& buffer_;
  char* at_;
};

}  // namespace gprof::trace
