#include "collector/interning/readonly_text.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace gprof {
namespace {

struct Segment {
  uintptr_t begin;
  uintptr_t end;
};

// Enough for the PyTorch stacks seen (a few hundred objects, about two
// read-only segments each); past it the rest count as writable.
constexpr size_t kMaxSegments = 4096;

struct Segments {
  Segment list[kMaxSegments];
  size_t count = 0;
  unsigned long long adds = 0;  // dl_iterate_phdr's counters at the scan
  unsigned long long subs = 0;
  bool scanned = false;
  uint64_t scan = 0;  // g_readonly_scan of this list
};

Segments g_segments;
std::atomic_flag g_busy = ATOMIC_FLAG_INIT;
std::atomic<bool> g_dlclose_hooked{false};

struct Counters {
  unsigned long long adds = 0, subs = 0;
};

// dlpi_adds/dlpi_subs are the same in every call: the first object is enough.
int read_counters(dl_phdr_info* info, size_t size, void* out) {
  auto* c = static_cast<Counters*>(out);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
  }
  return 1;
}

int add_segments(dl_phdr_info* info, size_t, void* out) {
  auto* s = static_cast<Segments*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    // PT_LOAD without PF_W: mapped read-only for the object's lifetime
    // (RELRO lies in writable PT_LOADs, so it is never taken).
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W)) continue;
    if (s->count == kMaxSegments) return 1;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    s->list[s->count++] = {begin, begin + ph.p_memsz};
  }
  return 0;
}

// The segment that may hold `at` in a list sorted by begin (segments do not
// overlap), or none.
const Segment* segment_before(const Segments& s, uintptr_t at) {
  const Segment* end = s.list + s.count;
  const Segment* after =
      std::upper_bound(s.list, end, at, [](uintptr_t a, const Segment& g) { return a < g.begin; });
  return after == s.list ? nullptr : after - 1;
}

// Whether [text, text + size) lies in one segment of the list; if not and
// `gap` is given, the addresses between the segments around its start.
bool holds(const Segments& s, const void* text, size_t size, WritableGap* gap = nullptr) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(text);
  const Segment* g = segment_before(s, begin);
  if (g && begin + size <= g->end) return true;
  if (gap != nullptr && (g == nullptr || begin >= g->end)) {
    const Segment* next = g != nullptr ? g + 1 : s.list;
    *gap = {s.scan, g != nullptr ? g->end : 0, next < s.list + s.count ? next->begin : UINTPTR_MAX};
  }
  return false;
}

}  // namespace

std::atomic<uint64_t> g_readonly_scan{0};

void set_dlclose_hooked(bool hooked) {
  g_dlclose_hooked.store(hooked, std::memory_order_release);
}

bool in_readonly_segment(const void* text, size_t size) {
  if (!g_dlclose_hooked.load(std::memory_order_acquire)) return false;
  if (g_busy.test_and_set(std::memory_order_acquire)) return false;
  Segments& s = g_segments;
  Counters now;
  dl_iterate_phdr(read_counters, &now);
  if (!s.scanned || now.adds != s.adds || now.subs != s.subs) {
    s.count = 0;
    dl_iterate_phdr(add_segments, &s);
    std::sort(s.list, s.list + s.count,
              [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
    s.adds = now.adds;
    s.subs = now.subs;
    s.scanned = true;
    s.scan = g_readonly_scan.load(std::memory_order_relaxed) + 1;
    g_readonly_scan.store(s.scan, std::memory_order_relaxed);
  }
  const bool found = holds(s, text, size);
  g_busy.clear(std::memory_order_release);
  return found;
}

bool in_scanned_readonly_segment(const void* text, size_t size, WritableGap* gap) {
  if (!g_dlclose_hooked.load(std::memory_order_acquire)) return false;
  if (g_busy.test_and_set(std::memory_order_acquire)) return false;
  const bool found = g_segments.scanned && holds(g_segments, text, size, gap);
  g_busy.clear(std::memory_order_release);
  return found;
}

}  // namespace gprof
