#include "tools/trace/clock_alignment.h"

namespace gprof::trace {
namespace {

// What the shim records on (formats/record.h) when a header does not say.
constexpr const char* kDefaultClock = "CLOCK_MONOTONIC";

std::string clock_name(const pb::FileHeader& header) {
  return header.clock().name().empty() ? kDefaultClock : header.clock().name();
}

bool same_clock(const pb::FileHeader& a, const pb::FileHeader& b) {
  return a.host() == b.host() && clock_name(a) == clock_name(b);
}

}  // namespace

ClockPlan plan_clocks(const std::vector<const pb::FileHeader*>& headers) {
  ClockPlan plan;
  plan.shift.assign(headers.size(), 0);
  plan.assumed.assign(headers.size(), false);
  const pb::FileHeader* first = nullptr;
  bool one_clock = true;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (headers[i] == nullptr) {
      plan.assumed[i] = true;
      continue;
    }
    if (first == nullptr) {
      first = headers[i];
      plan.as_file = i;
    } else if (!same_clock(*headers[i], *first)) {
      one_clock = false;
    }
  }
  if (one_clock) {
    plan.clock = first != nullptr ? clock_name(*first) : kDefaultClock;
    return plan;
  }
  plan.clock = kWallClock;
  for (size_t i = 0; i < headers.size(); ++i)
    plan.shift[i] = (headers[i] != nullptr ? headers[i] : first)->clock().offset_to_wall_ns();
  return plan;
}

}  // namespace gprof::trace
