#include "tools/analysis/render/footer_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "tools/analysis/render/format.h"

namespace gprof::analysis {
namespace {

std::string count_of(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string time_of(uint64_t ns) {
  return format_time(static_cast<double>(ns));
}

// Calibration bounds are nanoseconds; "0.031us" would hide them.
std::string nanoseconds(uint64_t ns) {
  return format_time(static_cast<double>(ns), TimeUnit::kNanoseconds);
}

}  // namespace

HoldTotals footer_holds(const pb::Footer& footer) {
  if (footer.holds() == 0) return {};
  return HoldTotals{footer.holds(), footer.held_ns(), footer.max_held_ns(), 1};
}

HoldTotals total_holds(const std::vector<FileInfo>& files) {
  HoldTotals out;
  for (const FileInfo& file : files) {
    if (!file.footer) continue;
    const HoldTotals holds = footer_holds(*file.footer);
    out.count += holds.count;
    out.total_ns += holds.total_ns;
    out.max_ns = std::max(out.max_ns, holds.max_ns);
    out.files += holds.files;
  }
  return out;
}

std::string describe_holds(const HoldTotals& holds) {
  return fmt::format("{}, {} in all (longest {})", count_of(holds.count, "time", "times"),
                     time_of(holds.total_ns), time_of(holds.max_ns));
}

std::string describe_queue_memory(const pb::Footer& footer) {
  if (footer.max_queue_bytes() == 0) return {};
  std::string out = fmt::format("peak {} of {} (GPROF_MAX_MEMORY)",
                                format_memory(static_cast<int64_t>(footer.peak_queue_bytes())),
                                format_memory(static_cast<int64_t>(footer.max_queue_bytes())));
  if (footer.thread_mapped_bytes() != 0)
    out += fmt::format("; {} of it mapped by recording threads, the writer being behind",
                       format_memory(static_cast<int64_t>(footer.thread_mapped_bytes())));
  return out;
}

std::string describe_timestamps(const pb::TimestampCalibration& c) {
  std::string out;
  if (c.source() == "tsc") {
    out = "TSC";
    if (c.ticks_per_second() > 0) out += fmt::format(" at {:.3f} GHz", c.ticks_per_second() / 1e9);
  } else {
    out = c.source().empty() ? std::string("unknown source") : c.source();
  }
  if (c.pairs() != 0) out += ", " + count_of(c.pairs(), "calibration pair", "calibration pairs");
  if (c.pairs() != 0 || c.max_uncertainty_ns() != 0)
    out += ", uncertainty <= " + nanoseconds(c.max_uncertainty_ns());
  if (c.pairs() != 0 || c.max_residual_ns() != 0)
    out += ", residual <= " + nanoseconds(c.max_residual_ns());
  return out;
}

std::string holds_note(const std::vector<FileInfo>& files) {
  const HoldTotals holds = total_holds(files);
  if (holds.count == 0) return {};
  return fmt::format("{} held {} for {} at GPROF_MAX_MEMORY (longest {}; GPROF_ON_FULL=wait)",
                     holds.files > 1 ? fmt::format("The programs of {} files were", holds.files)
                                     : std::string("The program was"),
                     count_of(holds.count, "time", "times"), time_of(holds.total_ns),
                     time_of(holds.max_ns));
}

}  // namespace gprof::analysis
