// Small helpers shared by the cases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client.h"

namespace fake_check {

int64_t MonotonicNs();
// CUPTI's default clock offset (GPROF_FAKE_CUPTI_CLOCK_OFFSET_NS unset): CLOCK_REALTIME -
// CLOCK_MONOTONIC, as observed (test/fakes/cupti/config.cc), less a millisecond for the
// moments at which the fake and this process sample the two clocks.
int64_t DefaultClockOffsetNs();
// GPROF_FAKE_KERNEL_NS and the copy cost at the default bandwidth (test/fakes/README.md).
constexpr uint64_t kKernelNs = 20'000;
uint64_t CopyNs(uint64_t bytes);

// The first event at or after `from` with this function name and site; events.size() if none.
size_t FindEvent(const std::vector<Event>& events, const std::string& function,
                 CUpti_ApiCallbackSite site, size_t from = 0);

// The API records (RUNTIME or DRIVER) with this cbid.
std::vector<CUpti_ActivityAPI> ApiRecords(const std::vector<Record>& records,
                                          CUpti_ActivityKind kind, uint32_t cbid);

}  // namespace fake_check
