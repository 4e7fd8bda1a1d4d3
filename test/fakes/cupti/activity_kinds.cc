#include "activity_kinds.h"

#include <atomic>

namespace gprof_fake_cupti {
namespace {

std::atomic<bool> g_enabled[CUPTI_ACTIVITY_KIND_COUNT];
std::atomic<bool> g_ever_enabled{false};

// The kinds of GPU work records, one bit each in an issue snapshot.
constexpr CUpti_ActivityKind kWorkKinds[] = {
    CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};

// correlation id << 32 | snapshot bits, by correlation id modulo the size.
constexpr size_t kIssueSlots = 1 << 16;
std::atomic<uint64_t> g_issued[kIssueSlots];

int WorkBit(CUpti_ActivityKind kind) {
  for (size_t i = 0; i < sizeof kWorkKinds / sizeof kWorkKinds[0]; ++i)
    if (kWorkKinds[i] == kind) return static_cast<int>(i);
  return -1;
}

}  // namespace

void NoteIssue(uint32_t correlation_id) {
  uint64_t bits = 0;
  for (size_t i = 0; i < sizeof kWorkKinds / sizeof kWorkKinds[0]; ++i)
    if (KindEnabled(kWorkKinds[i])) bits |= 1u << i;
  g_issued[correlation_id % kIssueSlots].store(static_cast<uint64_t>(correlation_id) << 32 | bits,
                                               std::memory_order_relaxed);
}

bool KindEnabledAtIssue(CUpti_ActivityKind kind, uint32_t correlation_id) {
  const uint64_t slot = g_issued[correlation_id % kIssueSlots].load(std::memory_order_relaxed);
  const int bit = WorkBit(kind);
  if (bit < 0 || (slot >> 32) != correlation_id) return KindEnabled(kind);
  return (slot & (1u << bit)) != 0;
}

bool ValidKind(CUpti_ActivityKind kind) {
  return kind > CUPTI_ACTIVITY_KIND_INVALID && kind < CUPTI_ACTIVITY_KIND_COUNT;
}

bool KindEnabled(CUpti_ActivityKind kind) {
  return ValidKind(kind) && g_enabled[kind].load(std::memory_order_relaxed);
}

void SetKindEnabled(CUpti_ActivityKind kind, bool enabled) {
  g_enabled[kind].store(enabled, std::memory_order_relaxed);
  if (enabled) g_ever_enabled.store(true, std::memory_order_relaxed);
}

bool AnyKindEverEnabled() {
  return g_ever_enabled.load(std::memory_order_relaxed);
}

void ResetKinds() {
  for (std::atomic<bool>& enabled : g_enabled) enabled.store(false, std::memory_order_relaxed);
  g_ever_enabled.store(false, std::memory_order_relaxed);
}

}  // namespace gprof_fake_cupti
