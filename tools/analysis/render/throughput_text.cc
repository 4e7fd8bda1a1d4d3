#include "tools/analysis/render/throughput_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace gprof::analysis {

std::vector<Field> throughput_fields(const FileThroughput& file,
                                     std::optional<uint64_t> samples_per_step,
                                     std::optional<TimeUnit> unit) {
  const auto time = [&](double ns) { return format_time(ns, unit); };
  const auto share = [&](uint64_t ns) {
    return format_time_share(static_cast<double>(ns), static_cast<double>(file.window_ns()));
  };
  const double seconds = static_cast<double>(file.window_ns()) / 1e9;
  std::vector<Field> out;
  // Without steps the window holds the start-up (imports, model set-up, CUDA's
  // initialization): say so, and what measures the run without it.
  out.emplace_back("Window", time(static_cast<double>(file.window_ns())) +
                                 (file.steps ? " (first step start to last step end)"
                                             : " (first to last record, start-up included; step "
                                               "ranges narrow it: --step NAME)"));
  if (const auto& steps = file.steps) {
    std::string value = fmt::format("{} {} matching '{}'", steps->count,
                                    steps->count == 1 ? "range" : "ranges", steps->pattern);
    if (seconds > 0) {
      const double rate = static_cast<double>(steps->count) / seconds;
      value += fmt::format(": {:.2f} steps/s", rate);
      if (samples_per_step) {
        value += fmt::format(", {:.2f} samples/s ({} per step)",
                             rate * static_cast<double>(*samples_per_step), *samples_per_step);
      }
    }
    out.emplace_back("Steps", value);
    out.emplace_back("Step time",
                     fmt::format("min {}, median {}, p95 {}, max {}",
                                 time(static_cast<double>(steps->min_ns)), time(steps->median_ns),
                                 time(steps->p95_ns), time(static_cast<double>(steps->max_ns))));
  }
  for (const DeviceBusy& device : file.devices) {
    std::string value =
        fmt::format("busy {} ({} of the window", time(static_cast<double>(device.busy_ns)),
                    share(device.busy_ns));
    const uint64_t span = device.last_ns > device.first_ns ? device.last_ns - device.first_ns : 0;
    if (!file.steps && span != 0)
      value += fmt::format(
          "; {} of its first to last work, {}",
          format_time_share(static_cast<double>(device.busy_ns), static_cast<double>(span)),
          time(static_cast<double>(span)));
    out.emplace_back(fmt::format("GPU {}", device.device), value + ")");
  }
  out.emplace_back(
      "Synchronize",
      fmt::format("{} in {} {} ({} of the window)", time(static_cast<double>(file.sync_ns)),
                  file.sync_calls, file.sync_calls == 1 ? "call" : "calls", share(file.sync_ns)));
  return out;
}

std::string render_throughput(const std::vector<FileThroughput>& files,
                              std::optional<uint64_t> samples_per_step,
                              std::optional<TimeUnit> unit) {
  const auto shown =
      std::count_if(files.begin(), files.end(), [](const FileThroughput& f) { return !f.empty(); });
  std::string out;
  for (const FileThroughput& file : files) {
    if (file.empty()) continue;
    const std::string prefix = shown > 1 ? fmt::format("[pid {}] ", file.pid) : std::string();
    for (const auto& [label, value] : throughput_fields(file, samples_per_step, unit))
      out += fmt::format("{}{}: {}\n", prefix, label, value);
  }
  return out;
}

}  // namespace gprof::analysis
