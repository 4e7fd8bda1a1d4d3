#include "tools/analysis/aggregate/late_device_time.h"

#include <vector>

namespace gprof::analysis {

void LateDeviceTime::pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context) {
  bool any = false;
  contexts.for_each(context, [&](const WalkTarget& t) {
    if (t.field != WalkField::kIssued && t.field != WalkField::kSelfDevice &&
        t.field != WalkField::kDeviceTotal)
      return;
    targets_.add(Target{correlation, t.key, static_cast<uint8_t>(t.field)});
    any = true;
  });
  // Kept without a target too: its late work is then known to be its own.
  if (!any) targets_.add(Target{correlation, 0, kNoTarget});
}

bool LateDeviceTime::join(const std::function<void(uint32_t, WalkField, uint64_t)>& add) {
  auto late = late_.sorted();
  auto kept = targets_.sorted();
  Late w{};
  Target k{};
  bool has_w = late.next(w), has_k = kept.next(k);
  std::vector<Target> targets;  // of one call
  while (has_w) {
    const uint64_t id = w.correlation;
    uint64_t ns = 0;
    for (; has_w && w.correlation == id; has_w = late.next(w)) ns += w.ns;
    while (has_k && k.correlation < id) has_k = kept.next(k);
    if (!has_k || k.correlation != id) return false;
    targets.clear();
    for (; has_k && k.correlation == id; has_k = kept.next(k)) targets.push_back(k);
    for (const Target& t : targets)
      if (t.field != kNoTarget) add(t.key, static_cast<WalkField>(t.field), ns);
  }
  return true;
}

}  // namespace gprof::analysis
