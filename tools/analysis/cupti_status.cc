#include "tools/analysis/cupti_status.h"

#include <fmt/format.h>

namespace gprof::analysis {

std::string describe_cupti_state(pb::CuptiStatus::State state) {
  std::string_view how;
  switch (state) {
    case pb::CuptiStatus::NOT_STARTED:
      how = "CUDA never initialized CUPTI";
      break;
    case pb::CuptiStatus::SUBSCRIBED:
      how = "pairing by CUPTI correlation id";
      break;
    case pb::CuptiStatus::EXTERNAL_CORRELATION:
      how = "another tool holds the subscriber; pairing by pushed external ids";
      break;
    case pb::CuptiStatus::CPU_ONLY:
      how = "CUPTI unusable; CPU-side recording only";
      break;
    default:
      return fmt::format("{} (unknown state)", static_cast<int>(state));
  }
  return fmt::format("{} ({})", pb::CuptiStatus::State_Name(state), how);
}

std::string format_cupti_version(uint32_t version) {
  if (version == 0) return "unknown";
  if (version < 10000) return std::to_string(version);
  return fmt::format("{}.{}.{} ({})", version / 10000, version / 100 % 100, version % 100, version);
}

std::string missing_gpu_times_reason(const std::optional<pb::CuptiStatus>& status,
                                     bool has_footer) {
  if (!status && !has_footer)
    return "unknown: the file ends before its CUPTI status (the process was killed, or the file "
           "was cut)";
  if (!status || status->state() == pb::CuptiStatus::NOT_STARTED) {
    // The shim says why when it knows (another tool's CUDA_INJECTION64_PATH).
    if (status && !status->reason().empty()) return status->reason();
    return "CUPTI was not set up (no CUDA_INJECTION64_PATH initialization)";
  }
  if (status->state() == pb::CuptiStatus::CPU_ONLY)
    return status->reason().empty() ? "CUPTI could not be used" : status->reason();
  // Set up, yet nothing came: the activity kinds were off, or the records
  // were lost (the losses line says).
  std::string out = fmt::format("CUPTI ({}) delivered no GPU activity records",
                                pb::CuptiStatus::State_Name(status->state()));
  if (!status->reason().empty()) out += "; " + status->reason();
  return out;
}

}  // namespace gprof::analysis
