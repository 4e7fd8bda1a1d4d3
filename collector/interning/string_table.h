// NVTX messages, domain and category names become small integer ids the
// first time they are seen (docs/architecture.md §2.4): later events carry only the id.
// Lock-free; the text is copied into an arena, since the program may free or
// reuse its buffer as soon as the call returns. The cost of a lookup does not
// grow with the table: probes are bounded, and a text the table cannot hold
// (full, or a slot still being filled by another thread) is stored with its
// event instead (kInlineName), never dropped and never waited for.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

enum class StringClass : uint8_t { kNvtx = 3, kDomain = 4, kCategory = 5 };

// Bits a capture window sets on a string when it is first interned, so that
// the hot path tests a flag instead of comparing text.
enum StringFlag : uint8_t {
  kStringStep = 1u << 0,     // names a training step (GPROF_STEP_RANGE, ProfilerStep*, step*)
  kStringCapture = 1u << 1,  // names the GPROF_CAPTURE=nvtx:NAME range
  // Not name flags: a push/pop pair not recorded whole (nvtx_injection.cc),
  // and whether that was a loss (GPROF_ON_FULL=drop), which its pop counts too.
  kStringLost = 1u << 6,
  kStringDropped = 1u << 7,
};

class StringTable {
 public:
  static constexpr uint32_t kFirstId = 1u << 28;  // above kernel and GPU-name ids
  static constexpr uint32_t kMaxStrings = 1u << 16;
  static constexpr uint32_t kMaxProbes = 32;
  using Classifier = uint8_t (*)(const char* text, size_t size, StringClass cls);

  // The id of `text` (size bytes, no NUL needed); kInlineName
  // (collector/queues/queue_records.h) when the table cannot hold it.
  uint32_t intern(const char* text, size_t size, StringClass cls);
  uint8_t flags(uint32_t id) const {
    if (id - kFirstId >= kMaxStrings) return 0;  // below kFirstId wraps around
    return entries_[id - kFirstId].flags;
  }

  // Programs pass the same literal to nvtxRangePushA again and again: the id
  // of a NUL-terminated NVTX text last interned from this very pointer, if
  // the text there is still the same; 0 otherwise. A pointer into a read-only
  // segment (collector/interning/readonly_text.h) cannot have changed and is trusted;
  // any other is compared. Only names without flags are remembered, so a hit
  // needs no flag test.
  uint32_t cached(const char* text) const {
    const uint64_t key = reinterpret_cast<uintptr_t>(text);
    const uint64_t slot = cache_[cache_index(key)].load(std::memory_order_acquire);
    if (__builtin_expect((slot >> 16) == (key | kReadOnlyTag), 1))
      return kFirstId + static_cast<uint32_t>(slot & 0xFFFF);
    if ((slot >> 16) != key || slot == 0) return 0;
    const uint32_t index = static_cast<uint32_t>(slot & 0xFFFF);
    const Entry& e = entries_[index];
    const char* stored = e.text.load(std::memory_order_acquire);
    return stored && same_text(stored, e.size, text) ? kFirstId + index : 0;
  }
  // Slow path, after intern() gave `text` (size bytes) its id.
  void remember(const char* text, size_t size, uint32_t id);
  // The same, told whether the text is read-only.
  void remember(const char* text, size_t size, uint32_t id, bool readonly);
  // dlclose: read-only text may be unmapped; those pointers are compared again.
  void forget_readonly();
  // The flags of a text that has no id.
  uint8_t classify(const char* text, size_t size, StringClass cls) const {
    return classifier_ ? classifier_(text, size, cls) : 0;
  }
  void set_classifier(Classifier classifier) { classifier_ = classifier; }

  // Writer side: entries [0, reserved()) exist or are being filled; text() is
  // null until an entry is filled.
  uint32_t reserved() const;
  const char* text(uint32_t id) const;
  StringClass string_class(uint32_t id) const;

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};
    std::atomic<uint32_t> index{0};  // entry index + 1; 0 while being filled; kNoEntry: full
  };
  struct Entry {
    std::atomic<const char*> text{nullptr};
    uint32_t size = 0;
    StringClass cls{};  // zero bytes (not a class): the table lives in .bss
    uint8_t flags = 0;
  };
  static constexpr uint32_t kSlots = kMaxStrings * 2;
  static constexpr size_t kArenaBytes = 8u << 20;
  static constexpr uint32_t kNoEntry = UINT32_MAX;

  static constexpr uint32_t kCacheSlots = 4096;
  // In a cache slot's pointer: the text is read-only. User-space pointers
  // stay below bit 47 (remember() caches no others).
  static constexpr uint64_t kReadOnlyTag = 1ull << 47;
  static uint32_t cache_index(uint64_t key) {
    return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 52) & (kCacheSlots - 1);
  }

  uint32_t add(Slot& slot, const char* text, size_t size, StringClass cls);

 public:
  // `text` is the C string `stored` (size bytes, then a NUL; 8-byte aligned
  // and zero-padded to a whole word by add()), compared a word at a time
  // over the size + 1 bytes that decide it. `text` may be shorter than
  // `stored`, so any of its words may reach past its NUL: a word is read whole
  // only where that cannot cross into another page (a page is mapped or not
  // as a whole); bytes past the n that decide are shifted out. Those reads
  // past the end of `text` are what AddressSanitizer reports (as it would
  // glibc's strlen if that were not assembly): they are meant, so it is told
  // not to look here.
  __attribute__((no_sanitize_address)) static bool same_text(const char* stored, size_t size,
                                                             const char* text) {
    const size_t n = size + 1;
    for (size_t i = 0;; i += 8) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(text + i);
      if (__builtin_expect((at & 4095) > 4088, 0)) {
        for (; i < n; ++i)
          if (stored[i] != text[i]) return false;
        return true;
      }
      uint64_t s, t;
      __builtin_memcpy(&s, stored + i, 8);
      __builtin_memcpy(&t, text + i, 8);
      if (i + 8 >= n) return ((s ^ t) << (64 - 8 * (n - i))) == 0;  // little-endian
      if (s != t) return false;
    }
  }

 private:
  bool same(uint32_t index, const char* text, size_t size, StringClass cls) const;

  Slot slots_[kSlots];
  Entry entries_[kMaxStrings];
  std::atomic<uint32_t> reserved_{0};
  alignas(8) char arena_[kArenaBytes] = {};
  std::atomic<size_t> arena_used_{0};
  Classifier classifier_ = nullptr;
  // (Pointer | kReadOnlyTag?) << 16 | entry index: one word, so a racing
  // update is never torn.
  std::atomic<uint64_t> cache_[kCacheSlots] = {};
};

}  // namespace gprof
