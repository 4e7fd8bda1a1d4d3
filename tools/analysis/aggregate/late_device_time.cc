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
    sums_.push_back(0);
  }
  recent = Recent{context, contexts.generation(), id};
  return id;
}

void LateDeviceTime::pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context) {
  const uint32_t snapshot = snapshot_of(contexts, context);
  if (snapshot == kNoSnapshot) {
    device_targets(contexts, context);
    for (const WalkTarget& t : found_)
      kept_.add(Kept{correlation, t.key, static_cast<uint8_t>(t.field)});
    // Kept without a target too: its late work is then known to be its own.
    if (found_.empty()) kept_.add(Kept{correlation, 0, kNoTarget});
    return;
  }
  const auto evict = [this](uint64_t id, uint32_t kept) { keep_on_disk(id, kept); };
  if (!blocks_.keep(correlation, snapshot, evict)) keep_on_disk(correlation, snapshot);
}

bool LateDeviceTime::join(const std::function<void(uint32_t, WalkField, uint64_t)>& add) {
  auto late = late_.sorted();
  auto kept = kept_.sorted();
  Late w{};
  Kept k{};
  bool has_w = late.next(w), has_k = kept.next(k);
  while (has_w) {
    const uint64_t id = w.correlation;
    uint64_t ns = 0;
    for (; has_w && w.correlation == id; has_w = late.next(w)) ns += w.ns;
    // Work that came before its call was pushed in a block kept in memory.
    const uint32_t snapshot = blocks_.find(id);
    if (snapshot != PushedBlocks::kNone) {
      sums_[snapshot] += ns;
      continue;
    }
    while (has_k && k.correlation < id) has_k = kept.next(k);
    if (!has_k || k.correlation != id) return false;
    for (; has_k && k.correlation == id; has_k = kept.next(k)) {
      if (k.field == kSnapshot)
        sums_[k.value] += ns;
      else if (k.field != kNoTarget)
        add(k.value, static_cast<WalkField>(k.field), ns);
    }
  }
  // Then each snapshot's sum to its targets.
  for (size_t s = 0; s < sums_.size(); ++s) {
    if (sums_[s] == 0) continue;
    const size_t end =
        s + 1 < snapshot_start_.size() ? snapshot_start_[s + 1] : snapshot_targets_.size();
    for (size_t t = snapshot_start_[s]; t < end; ++t)
      add(snapshot_targets_[t].key, snapshot_targets_[t].field, sums_[s]);
  }
  return true;
}

}  // namespace gprof::analysis
