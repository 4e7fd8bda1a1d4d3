#include "tools/analysis/aggregate/late_device_time.h"

namespace gprof::analysis {

void LateDeviceTime::device_targets(const WalkContexts& contexts, uint32_t context) {
  found_.clear();
  contexts.for_each(context, [&](const WalkTarget& t) {
    if (t.field == WalkField::kIssued || t.field == WalkField::kSelfDevice ||
        t.field == WalkField::kDeviceTotal)
      found_.push_back(t);
  });
}

uint32_t LateDeviceTime::snapshot_of(const WalkContexts& contexts, uint32_t context) {
  Recent& recent = recent_[context % recent_.size()];
  if (recent.context == context && recent.generation == contexts.generation() &&
      recent.snapshot != kNoSnapshot)
    return recent.snapshot;
  device_targets(contexts, context);
  // Each target as its key and field, without WalkTarget's padding.
  std::string bytes;
  for (const WalkTarget& t : found_) {
    const uint64_t code = (static_cast<uint64_t>(t.key) << 8) | static_cast<uint8_t>(t.field);
    bytes.append(reinterpret_cast<const char*>(&code), sizeof(code));
  }
  auto it = snapshot_ids_.find(bytes);
  uint32_t id;
  if (it != snapshot_ids_.end()) {
    id = it->second;
  } else {
    if (snapshot_start_.size() >= max_snapshots_) return kNoSnapshot;
    id = static_cast<uint32_t>(snapshot_start_.size());
    snapshot_start_.push_back(static_cast<uint32_t>(snapshot_targets_.size()));
    snapshot_targets_.insert(snapshot_targets_.end(), found_.begin(), found_.end());
    snapshot_ids_.emplace(std::move(bytes), id);
  }
  recent = Recent{context, contexts.generation(), id};
  return id;
}

void LateDeviceTime::pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context) {
  const uint32_t snapshot = snapshot_of(contexts, context);
  if (snapshot != kNoSnapshot) {
    kept_.add(Kept{correlation, snapshot, kSnapshot});
    return;
  }
  device_targets(contexts, context);
  for (const WalkTarget& t : found_)
    kept_.add(Kept{correlation, t.key, static_cast<uint8_t>(t.field)});
  // Kept without a target too: its late work is then known to be its own.
  if (found_.empty()) kept_.add(Kept{correlation, 0, kNoTarget});
}

bool LateDeviceTime::join(const std::function<void(uint32_t, WalkField, uint64_t)>& add) {
  auto late = late_.sorted();
  auto kept = kept_.sorted();
  // The first stage sums late time per snapshot, the second adds the sums.
  std::vector<uint64_t> sums(snapshot_start_.size(), 0);
  Late w{};
  Kept k{};
  bool has_w = late.next(w), has_k = kept.next(k);
  while (has_w) {
    const uint64_t id = w.correlation;
    uint64_t ns = 0;
    for (; has_w && w.correlation == id; has_w = late.next(w)) ns += w.ns;
    while (has_k && k.correlation < id) has_k = kept.next(k);
    if (!has_k || k.correlation != id) return false;
    for (; has_k && k.correlation == id; has_k = kept.next(k)) {
      if (k.field == kSnapshot)
        sums[k.value] += ns;
      else if (k.field != kNoTarget)
        add(k.value, static_cast<WalkField>(k.field), ns);
    }
  }
  for (size_t s = 0; s < sums.size(); ++s) {
    if (sums[s] == 0) continue;
    const size_t end =
        s + 1 < snapshot_start_.size() ? snapshot_start_[s + 1] : snapshot_targets_.size();
    for (size_t t = snapshot_start_[s]; t < end; ++t)
      add(snapshot_targets_[t].key, snapshot_targets_[t].field, sums[s]);
  }
  return true;
}

}  // namespace gprof::analysis
