// CUPTI activity records → GpuRecord. Pure functions of the record, so that
// unit tests can feed hand-built CUpti_Activity* structs (as kineto's do).
#pragma once

#include <cupti.h>

#include <cstdint>

#include "collector/gpu/clock_map.h"
#include "formats/record.h"

namespace gprof {

enum class ActivityOutcome {
  kGpu,            // `gpu` (and `kernel_name` for kernels) filled
  kExternal,       // gprof's own external correlation: `correlation`, `external_id`
  kZeroTimestamp,  // GPU work CUPTI could not time: counted, not shown
  kIgnored,        // kinds gprof does not store (API records, other tools' ids)
};

struct ParsedActivity {
  ActivityOutcome outcome = ActivityOutcome::kIgnored;
  GpuRecord gpu{};
  const char* kernel_name = nullptr;
  uint64_t correlation = 0;
  uint64_t external_id = 0;
};

// The external correlation kind gprof pushes (kineto uses CUSTOM0/1).
inline constexpr CUpti_ExternalCorrelationKind kGprofExternalKind =
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

// `clock` puts CUPTI timestamps on the recording clock (an offset of 0 when
// gprof's timestamp callback is registered).
ParsedActivity parse_activity(const CUpti_Activity* record, const ClockMap& clock);

}  // namespace gprof
