// NVTX (docs/architecture.md §3.6): NVTX3's header-only API loads the library named
// by NVTX_INJECTION64_PATH at the program's first NVTX call and asks it, via
// InitializeInjectionNvtx2, to fill the CORE and CORE2 callback slots. Each
// handler stamps one RangeEvent into the thread's ring; pairing is the tools'
// work. Works without CUDA: a CPU-only program's ranges are recorded too.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstring>
#include <cwchar>

#include "collector/interning/readonly_text.h"
#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/queue_records.h"
#include "collector/queues/static_tls.h"
#include "collector/queues/thread_state.h"
#include "collector/queues/timestamp.h"

namespace gprof::inject {
namespace {

std::atomic<uint64_t> g_next_range_id{1};
// A start dropped under GPROF_ON_FULL=drop hands out an id with this bit, so
// that its end is dropped too: no half of a range is kept.
constexpr uint64_t kDroppedRange = 1ull << 63;

// A name as the hot path has it: an id, or the text itself (then `id` is
// kInlineName), which the writer interns.
struct Name {
  uint32_t id = 0;
  InlineText text;
};

Name as_text(const char* text, size_t size, bool programs_own) {
  Name n;
  n.id = kInlineName;
  n.text.text = text;
  n.text.size = static_cast<uint32_t>(size < kMaxInlineText ? size : kMaxInlineText);
  n.text.address = programs_own ? reinterpret_cast<uintptr_t>(text) : 0;
  return n;
}

Name intern_bytes(const char* text, size_t size, StringClass cls) {
  Name n;
  n.id = string_table().intern(text, size, cls);
  if (n.id == kInlineName) n = as_text(text, size, false);
  return n;
}

// A message is found by its address once seen there (StringTable::cached: a
// literal's address alone, any other text compared with the stored copy). A
// literal (read-only, so its text is fixed) is interned here the first time,
// once. Any other text goes to the writer as text: emit_nvtx names every op
// call uniquely ("aten::addmm, seq = 1234, op_id = 5678"), and hashing,
// splitting and interning that here cost the program's thread ~800 times a
// step; the writer does it, and remembers the address of a text that may
// repeat (a Python string). Domains and categories are interned here: the
// program gets ids.
// `gap`: the calling thread's last writable gap (readonly_text.h), where the
// caller has its ThreadState; `cache_missed`: table.cached(text) was just 0.
Name intern(const char* text, StringClass cls, [[maybe_unused]] char (&scratch)[kMaxInlineText],
            WritableGap* gap = nullptr, bool cache_missed = false) {
  if (!text) return {};
  const size_t size = strnlen(text, kMaxInlineText);
  if (cls != StringClass::kNvtx) return intern_bytes(text, size, cls);
  StringTable& table = string_table();
  if (!cache_missed) {
    Name hit;
    hit.id = table.cached(text);
    if (hit.id) return hit;
  }
  if (gap != nullptr && in_writable_gap(*gap, text, size + 1)) return as_text(text, size, true);
  if (size < kMaxInlineText && in_scanned_readonly_segment(text, size + 1, gap)) {
    Name n = intern_bytes(text, size, cls);
    table.remember(text, size, n.id, true);
    return n;
  }
  return as_text(text, size, true);
}

// UTF-8 of a wide string, into a bounded buffer on the stack (no allocation).
Name intern(const wchar_t* text, StringClass cls, char (&out)[kMaxInlineText]) {
  if (!text) return {};
  size_t n = 0;
  for (; *text && n + 4 < sizeof out; ++text) {
    const uint32_t c = static_cast<uint32_t>(*text);
    if (c < 0x80) {
      out[n++] = static_cast<char>(c);
    } else if (c < 0x800) {
      out[n++] = static_cast<char>(0xC0 | (c >> 6));
      out[n++] = static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out[n++] = static_cast<char>(0xE0 | (c >> 12));
      out[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out[n++] = static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out[n++] = static_cast<char>(0xF0 | (c >> 18));
      out[n++] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out[n++] = static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  if (cls == StringClass::kNvtx) return as_text(out, n, false);
  return intern_bytes(out, n, cls);
}

// Ids that need no text: registered strings, domains and categories are
// handed back to the program as ids (never kInlineName: see below).
uint32_t id_only(const Name& n) {
  return n.id == kInlineName ? 0 : n.id;
}

uint32_t domain_id(nvtxDomainHandle_t domain) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(domain));
}

Name message_of(const nvtxEventAttributes_t* a, char (&scratch)[kMaxInlineText]) {
  if (!a) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return intern(a->message.ascii, StringClass::kNvtx, scratch);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return intern(a->message.unicode, StringClass::kNvtx, scratch);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      Name n;
      n.id = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(a->message.registered));
      return n;
    }
    default:
      return {};
  }
}

// Any event but a plain push or pop. False when it was dropped.
bool emit(RangeOp op, const Name& name, uint32_t domain, const nvtxEventAttributes_t* a,
          uint64_t range_id, bool must_keep = false) {
  if (!recording()) return false;
  RangeEvent e{};
  e.time_ns = timestamp();
  e.op = op;
  e.name = name.id;
  e.domain = domain;
  e.range_id = range_id;
  if (a) {
    e.category = a->category;
    if (a->colorType == NVTX_COLOR_ARGB) e.color = a->color;
    switch (a->payloadType) {
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
        e.payload = a->payload.ullValue;
        break;
      case NVTX_PAYLOAD_TYPE_INT64:
        e.payload = static_cast<uint64_t>(a->payload.llValue);
        break;
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
        e.payload = a->payload.uiValue;
        break;
      case NVTX_PAYLOAD_TYPE_INT32:
        e.payload = static_cast<uint32_t>(a->payload.iValue);
        break;
      default:
        break;
    }
  }
  return submit_range(e, name.text, must_keep);
}

// The hot pair: a push without attributes is a 16-byte record (32 with
// emit_nvtx numbers), a pop 16 bytes.
bool record_push(ThreadState& t, const Name& name) {
  const uint64_t now = timestamp();
  if (name.text.text) return submit_text_push(name.text, now);
  QPush* q = reserve<QPush>(t);
  if (!q) return false;
  q->type = QueueType::kPush;
  q->name = name.id;
  q->time = now;
  commit(t, sizeof(QPush));
  return true;
}

int push(const Name& name, uint32_t domain, const nvtxEventAttributes_t* a) {
  ThreadState& t = this_thread();
  // A name sent as text is classified here only when a window depends on it.
  uint8_t flags = !name.text.text ? string_table().flags(name.id)
                  : capture_follows_names()
                      ? string_table().classify(name.text.text, name.text.size, StringClass::kNvtx)
                      : 0;
  if ((flags & kStringCapture) && capture_domain() != 0 && domain != capture_domain())
    flags = static_cast<uint8_t>(flags & ~kStringCapture);
  if (flags) capture_range_entered(flags);  // before the event: the window opens on it
  uint8_t dropped = kStringDropped;
  if (recording()) {
    const bool kept = (a == nullptr && domain == 0) ? record_push(t, name)
                                                    : emit(RangeOp::kPush, name, domain, a, 0);
    dropped = kept ? 0 : kStringDropped | kStringLost;
  }
  // A push that was not recorded drops its pop too (capture windows
  // included: a window that opens inside a range does not record its pop).
  const int level = t.nvtx_depth++;
  if (level < ThreadState::kMaxDepth) t.nvtx_flags[level] = static_cast<uint8_t>(flags | dropped);
  return level;
}

// The hot push: a name seen before at this very address, no capture flags.
[[gnu::always_inline]] inline int push_known(ThreadState& t, uint32_t id) {
  uint8_t dropped = kStringDropped;
  if (recording()) {
    dropped = kStringDropped | kStringLost;
    if (QPush* q = reserve<QPush>(t)) {
      q->type = QueueType::kPush;
      q->name = id;
      q->time = timestamp();
      commit(t, sizeof(QPush));
      dropped = 0;
    }
  }
  const int level = t.nvtx_depth++;
  if (level < ThreadState::kMaxDepth) t.nvtx_flags[level] = dropped;
  return level;
}

[[gnu::noinline]] int push_known_slow(uint32_t id) {
  return push_known(this_thread(), id);
}

// A name the pointer cache did not know (`cache_missed`), or any name when
// the fast path is off: emit_nvtx's, each new text.
[[gnu::noinline]] int push_text(const char* m, bool cache_missed) {
  char scratch[kMaxInlineText];
  return push(intern(m, StringClass::kNvtx, scratch, &this_thread().writable_gap, cache_missed), 0,
              nullptr);
}

[[gnu::noinline]] int pop(uint32_t domain) {
  ThreadState& t = this_thread();
  if (t.nvtx_depth == 0) {
    // Unbalanced: recorded, the tools count it.
    if (recording()) {
      if (QPop* q = reserve<QPop>(t)) {
        q->type = QueueType::kPop;
        q->domain = domain;
        q->time = timestamp();
        commit(t, sizeof(QPop));
      }
    }
    return -1;
  }
  const int level = --t.nvtx_depth;
  uint8_t flags = 0;
  if (level < ThreadState::kMaxDepth) {
    flags = t.nvtx_flags[level];
    t.nvtx_flags[level] = 0;  // every level not open is 0: RangePushA relies on it
  }
  if (__builtin_expect(recording() && !(flags & kStringDropped), 1)) {
    // Its push is in the file: the pop waits for room rather than be lost.
    if (QPop* q = reserve<QPop>(t, true)) {
      q->type = QueueType::kPop;
      q->domain = domain;
      q->time = timestamp();
      commit(t, sizeof(QPop));
    }
  } else if (flags & kStringLost) {
    losses().add(LossReason::kRingFull);  // the other half of a dropped pair
  }
  const uint8_t window = static_cast<uint8_t>(flags & ~(kStringDropped | kStringLost));
  if (window) capture_range_left(window);
  return level;
}

void name_category(uint32_t domain, uint32_t category, uint32_t name) {
  Name n;
  n.id = name;
  nvtxEventAttributes_t a{};
  a.category = category;
  emit(RangeOp::kNameCategory, n, domain, &a, 0);
}

uint64_t start(const Name& name, uint32_t domain, const nvtxEventAttributes_t* a) {
  const uint64_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  if (!recording()) return id;
  return emit(RangeOp::kStart, name, domain, a, id) ? id : id | kDroppedRange;
}

void end(uint32_t domain, uint64_t id) {
  if (id & kDroppedRange) {
    if (recording()) losses().add(LossReason::kRingFull);  // the other half of a dropped range
    return;
  }
  emit(RangeOp::kEnd, Name{}, domain, nullptr, id, true);
}

// CORE
void NVTX_API MarkEx(const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kMark, message_of(a, scratch), 0, a, 0);
}
void NVTX_API MarkA(const char* m) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kMark, intern(m, StringClass::kNvtx, scratch), 0, nullptr, 0);
}
void NVTX_API MarkW(const wchar_t* m) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kMark, intern(m, StringClass::kNvtx, scratch), 0, nullptr, 0);
}
nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  return start(message_of(a, scratch), 0, a);
}
nvtxRangeId_t NVTX_API RangeStartA(const char* m) {
  char scratch[kMaxInlineText];
  return start(intern(m, StringClass::kNvtx, scratch), 0, nullptr);
}
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* m) {
  char scratch[kMaxInlineText];
  return start(intern(m, StringClass::kNvtx, scratch), 0, nullptr);
}
void NVTX_API RangeEnd(nvtxRangeId_t id) {
  end(0, id);
}
int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  return push(message_of(a, scratch), 0, a);
}
// The hot pair. Each fast path is a leaf that writes one 16-byte record;
// anything unusual (a new or flagged name, a full chunk, no TSC, deep
// nesting, a dropped push) is a tail call to the general path.
int NVTX_API RangePushA(const char* m) {
  if (__builtin_expect(!fast_record(), 0)) return push_text(m, false);
  const uint32_t id = string_table().cached(m);  // a hit has no flags; null never hits
  if (__builtin_expect(id == 0, 0)) return push_text(m, true);
  ThreadState& t = fast_thread();
  char* p = t.cursor;
  if (__builtin_expect(!fits(p, sizeof(QPush), t.end), 0)) return push_known_slow(id);
  store_head(p, QueueType::kPush, id);
  reinterpret_cast<QPush*>(p)->time = tsc_ticks();
  commit_at(t, p + sizeof(QPush));
  // Its flags are 0 already (pop() leaves every closed level 0), and a
  // level past kMaxDepth has none.
  return t.nvtx_depth++;
}
int NVTX_API RangePushW(const wchar_t* m) {
  char scratch[kMaxInlineText];
  return push(intern(m, StringClass::kNvtx, scratch), 0, nullptr);
}
int NVTX_API RangePop() {
  if (__builtin_expect(!fast_record(), 0)) return pop(0);
  ThreadState& t = fast_thread();
  char* p = t.cursor;
  const int depth = t.nvtx_depth;
  if (__builtin_expect(depth <= 0 || depth > ThreadState::kMaxDepth ||
                           t.nvtx_flags[depth - 1] != 0 || !fits(p, sizeof(QPop), t.end),
                       0))
    return pop(0);
  store_head(p, QueueType::kPop, 0);
  reinterpret_cast<QPop*>(p)->time = tsc_ticks();
  commit_at(t, p + sizeof(QPop));
  t.nvtx_depth = depth - 1;
  return depth - 1;
}
void NVTX_API NameCategoryA(uint32_t category, const char* name) {
  char scratch[kMaxInlineText];
  name_category(0, category, id_only(intern(name, StringClass::kCategory, scratch)));
}
void NVTX_API NameCategoryW(uint32_t category, const wchar_t* name) {
  char scratch[kMaxInlineText];
  name_category(0, category, id_only(intern(name, StringClass::kCategory, scratch)));
}
void NVTX_API NameOsThreadA(uint32_t thread, const char* name) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kNameThread, intern(name, StringClass::kNvtx, scratch), 0, nullptr, thread);
}
void NVTX_API NameOsThreadW(uint32_t thread, const wchar_t* name) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kNameThread, intern(name, StringClass::kNvtx, scratch), 0, nullptr, thread);
}

// CORE2 (domains)
void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  emit(RangeOp::kMark, message_of(a, scratch), domain_id(d), a, 0);
}
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  return start(message_of(a, scratch), domain_id(d), a);
}
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  end(domain_id(d), id);
}
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  char scratch[kMaxInlineText];
  return push(message_of(a, scratch), domain_id(d), a);
}
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) {
  return pop(domain_id(d));
}
nvtxResourceHandle_t NVTX_API DomainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
  return nullptr;  // resource naming is not recorded
}
void NVTX_API DomainResourceDestroy(nvtxResourceHandle_t) {}
void NVTX_API DomainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name) {
  char scratch[kMaxInlineText];
  name_category(domain_id(d), category, id_only(intern(name, StringClass::kCategory, scratch)));
}
void NVTX_API DomainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name) {
  char scratch[kMaxInlineText];
  name_category(domain_id(d), category, id_only(intern(name, StringClass::kCategory, scratch)));
}
// Registered strings and domains are handed back as their ids: the events
// that use them then carry the id without a lookup. A table too full to hold
// one hands back 0 (no name): NVTX keeps the handle, not the text.
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(
      uintptr_t{id_only(intern_bytes(s, s ? strnlen(s, kMaxInlineText) : 0, StringClass::kNvtx))});
}
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  char scratch[kMaxInlineText];
  return reinterpret_cast<nvtxStringHandle_t>(
      uintptr_t{id_only(intern(s, StringClass::kNvtx, scratch))});
}
nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(uintptr_t{
      id_only(intern_bytes(name, name ? strnlen(name, kMaxInlineText) : 0, StringClass::kDomain))});
}
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  char scratch[kMaxInlineText];
  return reinterpret_cast<nvtxDomainHandle_t>(
      uintptr_t{id_only(intern(name, StringClass::kDomain, scratch))});
}
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}
void NVTX_API Initialize(const void*) {}

template <typename F>
void set(NvtxFunctionTable table, unsigned size, unsigned id, F f) {
  if (id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(f);
}

}  // namespace
}  // namespace gprof::inject

using namespace gprof::inject;

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  // 0 tells NVTX to leave its calls as no-ops: disabled, AT_SECURE, another process.
  if (!gprof::recording_enabled() || get_export_table == nullptr) return 0;
  if (gprof::capture_needs_timer()) gprof::start_writer_once();
  // The objects loaded now, for the literals a thread interns itself.
  gprof::in_readonly_segment(nullptr, 0);
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned core_size = 0, core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size))
    return 0;
  set(core, core_size, NVTX_CBID_CORE_MarkEx, MarkEx);
  set(core, core_size, NVTX_CBID_CORE_MarkA, MarkA);
  set(core, core_size, NVTX_CBID_CORE_MarkW, MarkW);
  set(core, core_size, NVTX_CBID_CORE_RangeStartEx, RangeStartEx);
  set(core, core_size, NVTX_CBID_CORE_RangeStartA, RangeStartA);
  set(core, core_size, NVTX_CBID_CORE_RangeStartW, RangeStartW);
  set(core, core_size, NVTX_CBID_CORE_RangeEnd, RangeEnd);
  set(core, core_size, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  set(core, core_size, NVTX_CBID_CORE_RangePushA, RangePushA);
  set(core, core_size, NVTX_CBID_CORE_RangePushW, RangePushW);
  set(core, core_size, NVTX_CBID_CORE_RangePop, RangePop);
  set(core, core_size, NVTX_CBID_CORE_NameCategoryA, NameCategoryA);
  set(core, core_size, NVTX_CBID_CORE_NameCategoryW, NameCategoryW);
  set(core, core_size, NVTX_CBID_CORE_NameOsThreadA, NameOsThreadA);
  set(core, core_size, NVTX_CBID_CORE_NameOsThreadW, NameOsThreadW);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, DomainMarkEx);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, DomainRangeStartEx);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, DomainRangeEnd);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, DomainRangePushEx);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, DomainRangePop);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainResourceCreate, DomainResourceCreate);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainResourceDestroy, DomainResourceDestroy);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainNameCategoryA, DomainNameCategoryA);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainNameCategoryW, DomainNameCategoryW);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, DomainRegisterStringA);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, DomainRegisterStringW);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, DomainCreateA);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW, DomainCreateW);
  set(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, DomainDestroy);
  set(core2, core2_size, NVTX_CBID_CORE2_Initialize, Initialize);
  return 1;
}
