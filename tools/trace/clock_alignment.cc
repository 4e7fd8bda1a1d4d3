#include "tools/trace/clock_alignment.h"

namespace gprof::trace {
namespace {

// What the shim records on (formats/record.h) when a header does not say.
constexpr const char* kDefaultClock = "CLOCK_MONOTONIC";

std::string clock_name(const pb::FileHeader* header) {
  if (header == nullptr || header->clock().name().empty()) return kDefaultClock;
  return header->clock().name();
}

bool one_clock(const std::vector<const pb::FileHeader*>& headers) {
  if (headers.size() <= 1) return true;
  for (const pb::FileHeader* header : headers) {
    if (header == nullptr) return false;
    if (header->host() != headers.front()->host() ||
        clock_name(header) != clock_name(headers.front()))
      return false;
  }
  return true;
}

}  // namespace

ClockPlan plan_clocks(const std::vector<const pb::FileHeader*>& headers) {
  ClockPlan plan;
  plan.shift.assign(headers.size(), 0);
  if (one_clock(headers)) {
    plan.clock = clock_name(headers.empty() ? nullptr : headers.front());
    return plan;
  }
  plan.clock = kWallClock;
  for (size_t i = 0; i < headers.size(); ++i)
    if (headers[i] != nullptr) plan.shift[i] = headers[i]->clock().offset_to_wall_ns();
  return plan;
}

}  // namespace gprof::trace
