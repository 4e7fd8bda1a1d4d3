#include "collector/interning/string_table.h"

#include "collector/interning/readonly_text.h"

#include <cstring>

#include "collector/queues/loss_counters.h"
#include "collector/queues/queue_records.h"

namespace gprof {
namespace {

// Eight bytes at a time: a name costs a few instructions per word, not per
// byte. Never 0 (0 marks an empty slot).
uint64_t hash_text(const char* text, size_t size, StringClass cls) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (size * 0xff51afd7ed558ccdull) ^ static_cast<uint8_t>(cls);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, text + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  if (i < size) {
    uint64_t w = 0;
    std::memcpy(&w, text + i, size - i);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  h *= 0xc4ceb9fe1a85ec53ull;
  return (h ^ (h >> 32)) | 1;
}

// A slot another thread is filling: its copy takes a few hundred
// nanoseconds. After this many looks the text goes with the event instead:
// a preempted filler, or one that no longer exists (a fork child), costs
// nothing but an inline text.
constexpr int kMaxSpins = 64;

}  // namespace

bool StringTable::same(uint32_t index, const char* text, size_t size, StringClass cls) const {
  const Entry& e = entries_[index];
  const char* stored = e.text.load(std::memory_order_acquire);
  return stored && e.cls == cls && e.size == size && std::memcmp(stored, text, size) == 0;
}

uint32_t StringTable::add(Slot& slot, const char* text, size_t size, StringClass cls) {
  // Space first, so that an index is never reserved and left unfilled.
  // Whole words, so that texts stay 8-byte aligned and zero-padded (the
  // arena starts zeroed and is never reused): same_text() reads words.
  const size_t words = (size + 8) & ~size_t{7};
  const size_t at = arena_used_.fetch_add(words, std::memory_order_relaxed);
  if (at + words > kArenaBytes || reserved_.load(std::memory_order_relaxed) >= kMaxStrings) {
    losses().add(LossReason::kStringTableFull);
    slot.index.store(kNoEntry, std::memory_order_release);
    return kInlineName;
  }
  const uint32_t index = reserved_.fetch_add(1, std::memory_order_relaxed);
  if (index >= kMaxStrings) {
    losses().add(LossReason::kStringTableFull);
    slot.index.store(kNoEntry, std::memory_order_release);
    return kInlineName;
  }
  std::memcpy(arena_ + at, text, size);
  arena_[at + size] = '\0';
  Entry& e = entries_[index];
  e.size = static_cast<uint32_t>(size);
  e.cls = cls;
  e.flags = classifier_ ? classifier_(arena_ + at, size, cls) : 0;
  e.text.store(arena_ + at, std::memory_order_release);
  slot.index.store(index + 1, std::memory_order_release);
  return kFirstId + index;
}

uint32_t StringTable::intern(const char* text, size_t size, StringClass cls) {
  if (text == nullptr) return 0;
  const uint64_t h = hash_text(text, size, cls);
  uint32_t i = static_cast<uint32_t>(h >> 20) & (kSlots - 1);
  for (uint32_t probes = 0; probes < kMaxProbes; ++probes, i = (i + 1) & (kSlots - 1)) {
    Slot& slot = slots_[i];
    uint64_t current = slot.hash.load(std::memory_order_acquire);
    if (current == 0) {
      if (slot.hash.compare_exchange_strong(current, h, std::memory_order_acq_rel))
        return add(slot, text, size, cls);
      // Lost the race for this slot: `current` now holds the winner's hash.
    }
    if (current != h) continue;
    uint32_t index = slot.index.load(std::memory_order_acquire);
    for (int spin = 0; index == 0 && spin < kMaxSpins; ++spin)
      index = slot.index.load(std::memory_order_acquire);
    if (index == 0 || index == kNoEntry) return kInlineName;
    if (same(index - 1, text, size, cls)) return kFirstId + index - 1;
  }
  losses().add(LossReason::kStringTableFull);
  return kInlineName;
}

uint32_t StringTable::reserved() const {
  const uint32_t n = reserved_.load(std::memory_order_acquire);
  return n < kMaxStrings ? n : kMaxStrings;
}

const char* StringTable::text(uint32_t id) const {
  if (id < kFirstId || id - kFirstId >= kMaxStrings) return nullptr;
  return entries_[id - kFirstId].text.load(std::memory_order_acquire);
}

StringClass StringTable::string_class(uint32_t id) const {
  return entries_[id - kFirstId].cls;
}

void StringTable::remember(const char* text, size_t size, uint32_t id) {
  // The NUL too: a read-only text is trusted to end where it ended.
  remember(text, size, id, text != nullptr && in_readonly_segment(text, size + 1));
}

void StringTable::remember(const char* text, size_t, uint32_t id, bool readonly) {
  const uint64_t key = reinterpret_cast<uintptr_t>(text);
  if (key == 0 || id < kFirstId || id - kFirstId >= kMaxStrings || key >= kReadOnlyTag) return;
  if (entries_[id - kFirstId].flags) return;
  const uint64_t tag = readonly ? key | kReadOnlyTag : key;
  cache_[cache_index(key)].store((tag << 16) | (id - kFirstId), std::memory_order_release);
}

void StringTable::forget_readonly() {
  for (std::atomic<uint64_t>& slot : cache_) {
    uint64_t value = slot.load(std::memory_order_relaxed);
    if (((value >> 16) & kReadOnlyTag) != 0)
      slot.compare_exchange_strong(value, 0, std::memory_order_relaxed);
  }
}

}  // namespace gprof
