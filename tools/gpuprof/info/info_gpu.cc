#include "tools/gpuprof/info/info_gpu.h"

#include <fmt/format.h>

#include "tools/analysis/render/cupti_status.h"
#include "tools/analysis/render/format.h"
#include "tools/gpuprof/info/info_text.h"

namespace gprof::cli {
namespace {

// "+1.234us", "-0.500us": CUPTI's offset to the recording clock.
std::string signed_time(int64_t ns) {
  return (ns < 0 ? "" : "+") + analysis::format_time(static_cast<double>(ns));
}

std::string join(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::string describe_gpu_records(const analysis::FileInfo& file) {
  const analysis::GpuCounts& g = file.gpu;
  std::string out = "none";
  if (g.records != 0) {
    out = fmt::format("{} ({}, {}, {}, {}); {} unpaired", g.records,
                      plural(g.kernels, "kernel", "kernels"), plural(g.copies, "copy", "copies"),
                      plural(g.sets, "set", "sets"), plural(g.syncs, "sync", "syncs"), g.unpaired);
  }
  if (g.no_timestamp) out += fmt::format("; {} without a timestamp skipped", g.no_timestamp);
  if (g.outside_window)
    out += fmt::format("; {} issued outside the capture window left out", g.outside_window);
  if (file.footer && file.footer->gpu_records() != file.status.gpu_records)
    out += fmt::format("; the footer counts {}", file.footer->gpu_records());
  return out;
}

void print_cupti(const analysis::FileInfo& file) {
  if (!file.cupti) {
    field("CUPTI", "no status recorded; " +
                       analysis::missing_gpu_times_reason(file.cupti, file.footer.has_value()));
    return;
  }
  const pb::CuptiStatus& c = *file.cupti;
  fmt::print("CUPTI:\n");
  subfield("State", analysis::describe_cupti_state(c.state()));
  if (c.version() != 0) subfield("Version", analysis::format_cupti_version(c.version()));
  if (!c.library().empty()) subfield("Library", c.library());
  subfield("Injection", c.injection().empty() ? "(unset)" : c.injection());
  if (c.attach() == "injection")
    subfield("Attached", "at cuInit (InitializeInjection)");
  else if (c.attach() == "late")
    subfield("Attached",
             "late: CUDA was initialized before gprof's constructor; GPU work "
             "issued before gprof found it running is not recorded");
  const bool capturing = c.state() == pb::CuptiStatus::SUBSCRIBED ||
                         c.state() == pb::CuptiStatus::EXTERNAL_CORRELATION ||
                         c.state() == pb::CuptiStatus::TAKEN_OVER;
  if (!capturing) {
    // No GPU times: the clock line would describe nothing.
  } else if (c.timestamps_aligned()) {
    subfield("Timestamps", "aligned (on the recording clock)");
  } else {
    // The offset was subtracted from the GPU times in the file already.
    subfield(
        "Timestamps",
        fmt::format("not aligned; offset {} \u00b1 {} applied", signed_time(c.clock_offset_ns()),
                    analysis::format_time(static_cast<double>(c.offset_uncertainty_ns()))));
  }
  if (!c.reason().empty()) subfield("Reason", c.reason());
  for (const std::string& line : analysis::cupti_gap_lines(file)) subfield("Taken over", line);
  subfield("Activity kinds", c.activity_kinds_size() ? join(c.activity_kinds()) : "none");
  if (c.buffer_count() != 0 || c.buffer_bytes() != 0) {
    const uint64_t pool = uint64_t{c.buffer_count()} * c.buffer_bytes();
    subfield("Buffer pool",
             fmt::format("{} \u00d7 {} bytes ({})", c.buffer_count(), c.buffer_bytes(),
                         analysis::format_memory(static_cast<int64_t>(pool))));
  }
  if (file.gpu.external_correlations != 0)
    subfield("External ids", std::to_string(file.gpu.external_correlations));
}

}  // namespace gprof::cli
