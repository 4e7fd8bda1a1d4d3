#include "activity_kinds.h"

#include <atomic>

namespace gprof_fake_cupti {
namespace {

std::atomic<bool> g_enabled[CUPTI_ACTIVITY_KIND_COUNT];
std::atomic<bool> g_ever_enabled{false};

}  // namespace

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
