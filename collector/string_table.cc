#include "collector/string_table.h"

#include <cstring>

#include "collector/loss_counters.h"

namespace gprof {
namespace {

// FNV-1a with the class mixed in; never 0 (0 marks an empty slot).
uint64_t hash_text(const char* text, size_t size, StringClass cls) {
  uint64_t h = 0xcbf29ce484222325ull ^ static_cast<uint8_t>(cls);
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(text[i]);
    h *= 0x100000001b3ull;
  }
  return h | 1;
}

// A slot being filled by another thread: its copy takes a few hundred
// nanoseconds. Bounded, so a preempted filler costs a lost name, never a hang.
constexpr int kMaxSpins = 4096;

}  // namespace

bool StringTable::same(uint32_t index, const char* text, size_t size, StringClass cls) const {
  const Entry& e = entries_[index];
  const char* stored = e.text.load(std::memory_order_acquire);
  return stored && e.cls == cls && e.size == size && std::memcmp(stored, text, size) == 0;
}

uint32_t StringTable::add(uint64_t hash, Slot& slot, const char* text, size_t size,
                          StringClass cls) {
  const uint32_t index = reserved_.fetch_add(1, std::memory_order_relaxed);
  const size_t at = arena_used_.fetch_add(size + 1, std::memory_order_relaxed);
  if (index >= kMaxStrings || at + size + 1 > kArenaBytes) {
    losses().add(LossReason::kStringTableFull);
    slot.index.store(UINT32_MAX, std::memory_order_release);  // known, but without an id
    return 0;
  }
  std::memcpy(arena_ + at, text, size);
  arena_[at + size] = '\0';
  Entry& e = entries_[index];
  e.size = static_cast<uint32_t>(size);
  e.cls = cls;
  e.flags = classifier_ ? classifier_(arena_ + at, size, cls) : 0;
  e.text.store(arena_ + at, std::memory_order_release);
  // Publish in order so the writer can walk the ids without gaps.
  uint32_t expected = index;
  while (!published_.compare_exchange_weak(expected, index + 1, std::memory_order_acq_rel))
    expected = index;
  slot.index.store(index + 1, std::memory_order_release);
  (void)hash;
  return kFirstId + index;
}

uint32_t StringTable::intern(const char* text, size_t size, StringClass cls) {
  if (text == nullptr) return 0;
  const uint64_t h = hash_text(text, size, cls);
  uint32_t i = static_cast<uint32_t>(h >> 20) & (kSlots - 1);
  for (uint32_t probes = 0; probes < kSlots; ++probes, i = (i + 1) & (kSlots - 1)) {
    Slot& slot = slots_[i];
    uint64_t current = slot.hash.load(std::memory_order_acquire);
    if (current == 0) {
      if (slot.hash.compare_exchange_strong(current, h, std::memory_order_acq_rel))
        return add(h, slot, text, size, cls);
      // Lost the race for this slot: `current` now holds the winner's hash.
    }
    if (current != h) continue;
    uint32_t index = slot.index.load(std::memory_order_acquire);
    for (int spin = 0; index == 0 && spin < kMaxSpins; ++spin)
      index = slot.index.load(std::memory_order_acquire);
    if (index == 0 || index == UINT32_MAX) return 0;
    if (same(index - 1, text, size, cls)) return kFirstId + index - 1;
  }
  losses().add(LossReason::kStringTableFull);
  return 0;
}

uint8_t StringTable::flags(uint32_t id) const {
  if (id < kFirstId || id - kFirstId >= kMaxStrings) return 0;
  return entries_[id - kFirstId].flags;
}

const char* StringTable::text(uint32_t id) const {
  if (id < kFirstId || id - kFirstId >= kMaxStrings) return nullptr;
  return entries_[id - kFirstId].text.load(std::memory_order_acquire);
}

StringClass StringTable::string_class(uint32_t id) const {
  return entries_[id - kFirstId].cls;
}

}  // namespace gprof
