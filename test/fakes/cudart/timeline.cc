#include "timeline.h"

#include <algorithm>

namespace gprof_fake {

Timeline::Timeline(int device_count) : removed_tail_ns_(static_cast<size_t>(device_count), 0) {
  for (int device = 0; device < device_count; ++device) {
    legacy_.push_back(AddStream(device, StreamFlavor::kLegacy));
  }
}

uint32_t Timeline::AddStream(int device, StreamFlavor flavor) {
  const uint32_t id = next_id_++;
  streams_[id] = Stream{device, flavor, 0};
  return id;
}

void Timeline::RemoveStream(uint32_t id) {
  const auto it = streams_.find(id);
  if (it == streams_.end()) return;
  int64_t& removed = removed_tail_ns_[static_cast<size_t>(it->second.device)];
  removed = std::max(removed, it->second.tail_ns);
  streams_.erase(it);
}

int64_t Timeline::ReadyNs(const Stream& stream) const {
  int64_t ready = stream.tail_ns;
  if (stream.flavor == StreamFlavor::kNonBlocking) return ready;
  if (stream.flavor == StreamFlavor::kBlocking) {
    return std::max(ready, streams_.at(LegacyStream(stream.device)).tail_ns);
  }
  // The legacy stream is an implicit barrier: it waits for all blocking streams of its device,
  // including removed ones (their work was queued before this op).
  ready = std::max(ready, removed_tail_ns_[static_cast<size_t>(stream.device)]);
  for (const auto& [id, other] : streams_) {
    if (other.device == stream.device && other.flavor == StreamFlavor::kBlocking) {
      ready = std::max(ready, other.tail_ns);
    }
  }
  return ready;
}

Interval Timeline::Schedule(uint32_t id, int64_t now_ns, int64_t duration_ns) {
  Stream& stream = streams_.at(id);
  Interval interval;
  interval.start_ns = std::max(now_ns, ReadyNs(stream));
  interval.end_ns = interval.start_ns + duration_ns;
  stream.tail_ns = interval.end_ns;
  return interval;
}

void Timeline::WaitFor(uint32_t id, int64_t ready_ns) {
  Stream& stream = streams_.at(id);
  stream.tail_ns = std::max(stream.tail_ns, ready_ns);
}

int64_t Timeline::StreamDoneNs(uint32_t id) const {
  const Stream& stream = streams_.at(id);
  // Synchronizing the legacy stream is itself a barrier; other streams wait for their own work.
  return stream.flavor == StreamFlavor::kLegacy ? ReadyNs(stream) : stream.tail_ns;
}

int64_t Timeline::DeviceDoneNs(int device) const {
  int64_t done = removed_tail_ns_[static_cast<size_t>(device)];
  for (const auto& [id, stream] : streams_) {
    if (stream.device == device) done = std::max(done, stream.tail_ns);
  }
  return done;
}

int64_t Timeline::AllDoneNs() const {
  int64_t done = 0;
  for (const int64_t removed : removed_tail_ns_) done = std::max(done, removed);
  for (const auto& [id, stream] : streams_) done = std::max(done, stream.tail_ns);
  return done;
}

}  // namespace gprof_fake
