#include "util.h"

#include <ctime>

namespace fake_check {

int64_t DefaultClockOffsetNs() {
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  return (static_cast<int64_t>(real.tv_sec) - mono.tv_sec) * 1'000'000'000 +
         (real.tv_nsec - mono.tv_nsec) - 1'000'000;
}

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

uint64_t CopyNs(uint64_t bytes) {
  return 2'000 + (bytes + 9) / 10;
}

size_t FindEvent(const std::vector<Event>& events, const std::string& function,
                 CUpti_ApiCallbackSite site, size_t from) {
  for (size_t i = from; i < events.size(); ++i) {
    if (events[i].function == function && events[i].site == site) return i;
  }
  return events.size();
}

std::vector<CUpti_ActivityAPI> ApiRecords(const std::vector<Record>& records,
                                          CUpti_ActivityKind kind, uint32_t cbid) {
  std::vector<CUpti_ActivityAPI> selected;
  for (const Record& record : records) {
    if (record.kind == kind && record.As<CUpti_ActivityAPI>().cbid == cbid) {
      selected.push_back(record.As<CUpti_ActivityAPI>());
    }
  }
  return selected;
}

}  // namespace fake_check
