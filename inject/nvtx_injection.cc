// NVTX (DESIGN.md §3 "NVTX"): NVTX3's header-only API loads the library named
// by NVTX_INJECTION64_PATH at the program's first NVTX call and asks it, via
// InitializeInjectionNvtx2, to fill the CORE and CORE2 callback slots. Each
// handler stamps one RangeEvent into the thread's ring; pairing is the tools'
// work. Works without CUDA: a CPU-only program's ranges are recorded too.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstring>
#include <cwchar>

#include "collector/capture_window.h"
#include "collector/clock.h"
#include "collector/process_state.h"
#include "collector/recorder.h"

namespace gprof::inject {
namespace {

std::atomic<uint64_t> g_next_range_id{1};

// Push/pop nesting of this thread, for NVTX's return values and for capture
// windows (the flags of each open range's name). Deeper ranges still record.
constexpr int kMaxDepth = 128;
struct NvtxThread {
  int depth;
  uint8_t flags[kMaxDepth];
};
constinit thread_local NvtxThread t_nvtx{0, {}};

uint32_t intern(const char* text, StringClass cls) {
  return text ? string_table().intern(text, strnlen(text, 4096), cls) : 0;
}

// UTF-8 of a wide string, into a bounded buffer on the stack (no allocation).
uint32_t intern(const wchar_t* text, StringClass cls) {
  if (!text) return 0;
  char out[1024];
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
  return string_table().intern(out, n, cls);
}

uint32_t domain_id(nvtxDomainHandle_t domain) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(domain));
}

uint32_t message_of(const nvtxEventAttributes_t* a) {
  if (!a) return 0;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return intern(a->message.ascii, StringClass::kNvtx);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return intern(a->message.unicode, StringClass::kNvtx);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(a->message.registered));
    default:
      return 0;
  }
}

void emit(RangeOp op, uint32_t name, uint32_t domain, const nvtxEventAttributes_t* a,
          uint64_t range_id) {
  if (!recording()) return;
  RangeEvent e{};
  e.time_ns = clock_ns();
  e.op = op;
  e.name = name;
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
  submit_range(e);
}

int push(uint32_t name, uint32_t domain, const nvtxEventAttributes_t* a) {
  NvtxThread& t = t_nvtx;
  uint8_t flags = string_table().flags(name);
  if ((flags & kStringCapture) && capture_domain() != 0 && domain != capture_domain())
    flags = static_cast<uint8_t>(flags & ~kStringCapture);
  if (t.depth < kMaxDepth) t.flags[t.depth] = flags;
  const int level = t.depth++;
  if (flags) capture_range_entered(flags);  // before the event: the window opens on it
  emit(RangeOp::kPush, name, domain, a, 0);
  return level;
}

int pop(uint32_t domain) {
  NvtxThread& t = t_nvtx;
  emit(RangeOp::kPop, 0, domain, nullptr, 0);
  if (t.depth == 0) return -1;  // unbalanced: recorded, the tools count it
  const int level = --t.depth;
  if (level < kMaxDepth && t.flags[level]) capture_range_left(t.flags[level]);
  return level;
}

void name_category(uint32_t domain, uint32_t category, uint32_t name) {
  if (!recording()) return;
  RangeEvent e{};
  e.time_ns = clock_ns();
  e.op = RangeOp::kNameCategory;
  e.domain = domain;
  e.category = category;
  e.name = name;
  submit_range(e);
}

uint64_t start(uint32_t name, uint32_t domain, const nvtxEventAttributes_t* a) {
  const uint64_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  emit(RangeOp::kStart, name, domain, a, id);
  return id;
}

// CORE
void NVTX_API MarkEx(const nvtxEventAttributes_t* a) {
  emit(RangeOp::kMark, message_of(a), 0, a, 0);
}
void NVTX_API MarkA(const char* m) {
  emit(RangeOp::kMark, intern(m, StringClass::kNvtx), 0, nullptr, 0);
}
void NVTX_API MarkW(const wchar_t* m) {
  emit(RangeOp::kMark, intern(m, StringClass::kNvtx), 0, nullptr, 0);
}
nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) {
  return start(message_of(a), 0, a);
}
nvtxRangeId_t NVTX_API RangeStartA(const char* m) {
  return start(intern(m, StringClass::kNvtx), 0, nullptr);
}
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* m) {
  return start(intern(m, StringClass::kNvtx), 0, nullptr);
}
void NVTX_API RangeEnd(nvtxRangeId_t id) {
  emit(RangeOp::kEnd, 0, 0, nullptr, id);
}
int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) {
  return push(message_of(a), 0, a);
}
int NVTX_API RangePushA(const char* m) {
  return push(intern(m, StringClass::kNvtx), 0, nullptr);
}
int NVTX_API RangePushW(const wchar_t* m) {
  return push(intern(m, StringClass::kNvtx), 0, nullptr);
}
int NVTX_API RangePop() {
  return pop(0);
}
void NVTX_API NameCategoryA(uint32_t category, const char* name) {
  name_category(0, category, intern(name, StringClass::kCategory));
}
void NVTX_API NameCategoryW(uint32_t category, const wchar_t* name) {
  name_category(0, category, intern(name, StringClass::kCategory));
}
void NVTX_API NameOsThreadA(uint32_t thread, const char* name) {
  emit(RangeOp::kNameThread, intern(name, StringClass::kNvtx), 0, nullptr, thread);
}
void NVTX_API NameOsThreadW(uint32_t thread, const wchar_t* name) {
  emit(RangeOp::kNameThread, intern(name, StringClass::kNvtx), 0, nullptr, thread);
}

// CORE2 (domains)
void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  emit(RangeOp::kMark, message_of(a), domain_id(d), a, 0);
}
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return start(message_of(a), domain_id(d), a);
}
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  emit(RangeOp::kEnd, 0, domain_id(d), nullptr, id);
}
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return push(message_of(a), domain_id(d), a);
}
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) {
  return pop(domain_id(d));
}
nvtxResourceHandle_t NVTX_API DomainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
  return nullptr;  // resource naming is not recorded
}
void NVTX_API DomainResourceDestroy(nvtxResourceHandle_t) {}
void NVTX_API DomainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name) {
  name_category(domain_id(d), category, intern(name, StringClass::kCategory));
}
void NVTX_API DomainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name) {
  name_category(domain_id(d), category, intern(name, StringClass::kCategory));
}
// Registered strings and domains are handed back as their ids: the events
// that use them then carry the id without a lookup.
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(uintptr_t{intern(s, StringClass::kNvtx)});
}
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  return reinterpret_cast<nvtxStringHandle_t>(uintptr_t{intern(s, StringClass::kNvtx)});
}
nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(uintptr_t{intern(name, StringClass::kDomain)});
}
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(uintptr_t{intern(name, StringClass::kDomain)});
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
