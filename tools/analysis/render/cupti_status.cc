#include "tools/analysis/render/cupti_status.h"

#include <fmt/format.h>

#include "tools/analysis/read/profile.h"
#include "tools/analysis/render/format.h"

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
    case pb::CuptiStatus::TAKEN_OVER:
      how = "another tool took CUPTI over; gprof's GPU records stopped";
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

std::vector<std::string> cupti_gap_lines(const FileInfo& file) {
  std::vector<std::string> lines;
  if (!file.cupti) return lines;
  const uint64_t origin = file.first_ns;
  for (int i = 0; i < file.cupti->gaps_size(); ++i) {
    const pb::CuptiGap& gap = file.cupti->gaps(i);
    const double from = gap.start_ns() > origin ? static_cast<double>(gap.start_ns() - origin) : 0;
    std::string line;
    if (gap.end_ns() != 0) {
      const double to = gap.end_ns() > origin ? static_cast<double>(gap.end_ns() - origin) : 0;
      line = fmt::format("no GPU records from {} to {} ({})", format_time(from), format_time(to),
                         format_time(static_cast<double>(gap.end_ns() - gap.start_ns())));
    } else {
      line = fmt::format("no GPU records from {} to the end", format_time(from));
    }
    line += ": " + gap.reason();
    if (gap.clock_replaced()) line += "; its timestamp callback replaced gprof's clock";
    if (static_cast<size_t>(i) < file.gaps.size()) {
      const GapCounts& c = file.gaps[static_cast<size_t>(i)];
      line += fmt::format(
          "; {} launches in it, {} without GPU records; GPU records: {} before, {} during, {} "
          "after",
          c.launches, c.launches_without_gpu, c.gpu_before, c.gpu_during, c.gpu_after);
    } else {
      line += fmt::format("; GPU records read before it: {}", gap.gpu_records_before());
    }
    lines.push_back(std::move(line));
  }
  if (file.cupti->gaps_not_kept() != 0)
    lines.push_back(fmt::format("{} more such intervals not kept", file.cupti->gaps_not_kept()));
  return lines;
}

}  // namespace gprof::analysis
