// Whether a text lies in a read-only segment of a loaded ELF object (a string
// literal in a program's or library's .rodata): its bytes cannot change while
// the object stays loaded, so the NVTX pointer cache (string_table.h) may
// trust the pointer without comparing the text. Objects are only unloaded by
// dlclose, which gprof interposes (inject/hooks_dl.cc) to forget such
// pointers; where that hook is not what the program calls (gprof dlopen'ed by
// the driver rather than preloaded), no text counts as read-only.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "collector/queues/thread_state.h"  // WritableGap

namespace gprof {

// The scan the segments come from (1 the first; 0 before any): a gap of
// another scan is not used.
extern std::atomic<uint64_t> g_readonly_scan;

inline bool in_writable_gap(const WritableGap& gap, const void* text, size_t size) {
  const auto begin = reinterpret_cast<uintptr_t>(text);
  // A thread's gap before its first ({0, 0, 0}) holds no address.
  return gap.scan == g_readonly_scan.load(std::memory_order_relaxed) && begin >= gap.begin &&
         begin < gap.end && size <= gap.end - begin;
}

// Slow path (a name's first sight): the loader's list of objects is read
// again only when it changed (dl_iterate_phdr's adds/subs counters). False
// when unsure (another thread rescanning, too many segments).
bool in_readonly_segment(const void* text, size_t size);

// The same question against the objects found at the last scan, without
// asking the loader (whose list is behind its lock): for a recording thread.
// An object loaded since counts as writable until the next scan (any
// in_readonly_segment call); an unloaded one is never asked about, since the
// text passed is the program's, alive during the call, and dlclose clears
// every address trusted before (StringTable::forget_readonly). False while
// another thread rescans. `gap`, when given and the text is writable: where
// it lay (unchanged when that is not known).
bool in_scanned_readonly_segment(const void* text, size_t size, WritableGap* gap = nullptr);

// Whether the program's dlclose reaches gprof's hook; set once at start.
void set_dlclose_hooked(bool hooked);

}  // namespace gprof
