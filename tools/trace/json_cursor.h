// Appends one trace event's JSON to a Buffer without per-piece checks: the
// caller reserves an upper bound of the event's length up front, then the
// pieces (literals, numbers, pre-escaped strings) are copied through a raw
// pointer. This is the trace's hot loop (millions of events a second), where
// fmt's format-string parsing and per-append growth checks cost more than
// the writing.
#pragma once

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

  void number(uint64_t value) {
    char digits[20];
    char* end = digits + sizeof(digits);
    char* p = end;
    while (value >= 100) {
      p -= 2;
      std::memcpy(p, kPairs + (value % 100) * 2, 2);
      value /= 100;
    }
    if (value >= 10) {
      p -= 2;
      std::memcpy(p, kPairs + value * 2, 2);
    } else {
      *--p = static_cast<char>('0' + value);
    }
    text(std::string_view(p, static_cast<size_t>(end - p)));
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
