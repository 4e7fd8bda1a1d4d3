// What a hook writes into its thread's queue (collector/queues/thread_state.h):
// compact, 8-byte aligned records of a few fixed layouts, written in place on
// the hot path (docs/architecture.md §2.1). Times are raw timestamp() ticks; the writer
// turns each into an ApiRecord or RangeEvent (formats/record.h) with times on
// the recording clock. The first byte of every record is its QueueType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "formats/record.h"

namespace gprof {

enum class QueueType : uint8_t {
  kCall = 1,    // QCall: any API call but a launch
  kLaunch = 2,  // QLaunch
  kPush = 3,    // QPush: nvtxRangePushA and friends without attributes
  kPop = 4,     // QPop
  // 5: an emit_nvtx push split on the recording thread, no longer made (the
  // writer splits QText)
  kRange = 6,  // QRange: any other NVTX event
  kText = 7,   // QText: a name stored with the event (the next record's)
  // A QLaunch claimed before its real call and finished after it (its type
  // then turns kLaunch, a release store), so that a thread's records stay in
  // order of their start. Published early only when something inside the
  // call recorded on the same thread (a signal handler); the writer waits for
  // it.
  kPendingLaunch = 8,
  kPendingCall = 9,  // the same for a QCall (inject/api_call.h)
};

// A name id meaning "the text is in the QText record just before".
inline constexpr uint32_t kInlineName = 0xFFFFFFFFu;

// The top two bits of QCall::copy_kind and QLaunch::by_handle: the libcudart
// major the hook forwarded the call to (ApiRecord::runtime), 0 when unknown.
inline constexpr uint8_t runtime_bits(int major) {
  return major == 12 ? 1u << 6 : major == 13 ? 2u << 6 : 0;
}
inline constexpr uint8_t runtime_of(uint8_t bits) {
  return (bits >> 6) == 1 ? 12 : (bits >> 6) == 2 ? 13 : 0;
}
inline constexpr uint8_t kLowBits = 0x3F;

struct QCall {
  QueueType type;
  uint8_t copy_kind;  // cudaMemcpyKind | runtime_bits
  uint16_t api;       // ApiId
  int32_t result;
  uint64_t start;
  uint64_t end;
  uint64_t stream;
  uint64_t bytes;
  uint64_t address;
  uint64_t correlation;
};

struct QLaunch {
  QueueType type;
  uint8_t by_handle;  // `function` is a cudaKernel_t, not a host stub; | runtime_bits
  uint16_t api;
  int32_t result;
  uint64_t start;
  uint64_t end;
  uint64_t stream;
  uint64_t correlation;
  // The host stub or handle: the writer looks its name up, off the hot path.
  const void* function;
  uint32_t kernel;  // an id the caller already had (CUPTI callbacks); 0: look up `function`
  uint32_t shared_mem;
  Dim3 grid;
  Dim3 block;
};

// Every field of a launch record, written in place (hooks, CUPTI callbacks).
[[gnu::always_inline]] inline void fill_launch(QLaunch* q, uint16_t api, uint8_t by_handle,
                                               int32_t result, uint64_t start, uint64_t end,
                                               uint64_t stream, uint64_t correlation,
                                               const void* function, uint32_t kernel,
                                               uint32_t shared_mem, Dim3 grid, Dim3 block) {
  q->type = QueueType::kLaunch;
  q->by_handle = by_handle;
  q->api = api;
  q->result = result;
  q->start = start;
  q->end = end;
  q->stream = stream;
  q->correlation = correlation;
  q->function = function;
  q->kernel = kernel;
  q->shared_mem = shared_mem;
  q->grid = grid;
  q->block = block;
}

struct QPush {
  QueueType type;
  uint8_t pad[3];
  uint32_t name;
  uint64_t time;
};

struct QPop {
  QueueType type;
  uint8_t pad[3];
  uint32_t domain;
  uint64_t time;
};

// The first word of a QPush or QPop (type, then the name or domain at byte
// 4), with one store.
inline void store_head(char* at, QueueType type, uint32_t value) {
  const uint64_t word = static_cast<uint64_t>(type) | static_cast<uint64_t>(value) << 32;
  __builtin_memcpy(at, &word, sizeof word);
}

struct QRange {
  QueueType type;
  RangeOp op;
  uint8_t pad[2];
  uint32_t name;
  uint64_t time;
  uint64_t range_id;
  uint64_t payload;
  uint32_t domain;
  uint32_t category;
  uint32_t color;
  uint32_t pad2;
};

// Followed by `size` bytes of text, padded to 8: a name the recording thread
// did not intern (any NVTX message it has not seen at this address before:
// the writer interns it, splits emit_nvtx's numbers out of it, and may
// remember `address` so that the thread finds the name there next time).
struct QText {
  QueueType type;
  uint8_t string_class;  // StringClass
  uint16_t size;
  uint32_t pad;
  uint64_t address;  // where the program's text was; 0: not the program's (a conversion)
};

inline constexpr uint32_t kMaxInlineText = 4096;

constexpr uint32_t padded8(uint32_t n) {
  return (n + 7u) & ~7u;
}

static_assert(sizeof(QCall) == 56 && sizeof(QLaunch) == 80 && sizeof(QPush) == 16 &&
              sizeof(QPop) == 16 && sizeof(QRange) == 48 && sizeof(QText) == 16);
static_assert(std::is_trivially_copyable_v<QLaunch> && std::is_trivially_copyable_v<QRange>);
static_assert(offsetof(QPush, name) == 4 && offsetof(QPop, domain) == 4);
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "store_head writes a little-endian word");

}  // namespace gprof
