#include "collector/interning/torch_message.h"

#include <cstring>

namespace gprof {
namespace {

constexpr char kSeq[] = ", seq = ";
// What older autograd engines wrote for backward ops (range_names.cc knows it too).
constexpr char kStashedSeq[] = ", stashed seq = ";
constexpr char kOpId[] = ", op_id = ";
constexpr char kInputOpIds[] = ", input_op_ids = ";

template <size_t N>
bool at(const char* p, const char* end, const char (&key)[N]) {
  return static_cast<size_t>(end - p) >= N - 1 && std::memcmp(p, key, N - 1) == 0;
}

// The number after a key; p moves past its digits. False without digits.
bool number(const char*& p, const char* end, uint64_t& value) {
  const char* start = p;
  value = 0;
  while (p < end && *p >= '0' && *p <= '9') value = value * 10 + static_cast<uint64_t>(*p++ - '0');
  return p != start;
}

}  // namespace

bool split_torch_message(const char* text, size_t size, char* out, TorchMessage& m) {
  const char* end = text + size;
  const char* p = text;
  // The first ", seq = " or ", op_id = "; cheap for names without a comma.
  for (;; ++p) {
    p = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
    if (p == nullptr) return false;
    if (at(p, end, kSeq) || at(p, end, kStashedSeq) || at(p, end, kOpId)) break;
  }
  m = TorchMessage{};
  size_t n = static_cast<size_t>(p - text);
  std::memcpy(out, text, n);
  bool found = false;
  while (p < end) {
    uint64_t value = 0;
    if (at(p, end, kSeq) || at(p, end, kStashedSeq)) {
      const char* q = p + (at(p, end, kSeq) ? sizeof kSeq : sizeof kStashedSeq) - 1;
      if (number(q, end, value)) {
        m.seq = value + 1;
        found = true;
        p = q;
        continue;
      }
    } else if (at(p, end, kOpId)) {
      const char* q = p + sizeof kOpId - 1;
      if (number(q, end, value)) {
        m.op_id = value;
        found = true;
        p = q;
        continue;
      }
    } else if (at(p, end, kInputOpIds)) {
      break;  // the rest differs on every call
    }
    // Anything else ("sizes = [[2, 3], [2, 3]]") is stable: copied up to the
    // next ", " that starts a key.
    out[n++] = *p++;
    while (p < end && !(*p == ',' && (at(p, end, kSeq) || at(p, end, kStashedSeq) ||
                                      at(p, end, kOpId) || at(p, end, kInputOpIds))))
      out[n++] = *p++;
  }
  m.size = n;
  return found;
}

}  // namespace gprof
