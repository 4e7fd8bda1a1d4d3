#include "tools/analysis/aggregate/throughput_stream.h"

namespace gprof::analysis {

ThroughputStream::ThroughputStream(std::vector<std::string> step_patterns)
    : steps_(step_patterns.empty() ? default_step_patterns() : std::move(step_patterns)) {}

FileThroughput ThroughputStream::finish(uint32_t file, uint32_t pid, uint64_t first_ns,
                                        uint64_t last_ns) {
  FileThroughput out;
  out.file = file;
  out.pid = pid;
  out.steps = steps_.finish();
  out.window_begin_ns = out.steps ? out.steps->first_start_ns : first_ns;
  out.window_end_ns = out.steps ? out.steps->last_end_ns : last_ns;
  for (auto& [device, work] : work_)
    out.devices.push_back(
        DeviceBusy{device, covered_length(work, out.window_begin_ns, out.window_end_ns)});
  out.sync_ns = clipped_sum(syncs_, out.window_begin_ns, out.window_end_ns);
  for (const auto& [start, end] : syncs_)
    if (start < out.window_end_ns && end > out.window_begin_ns) ++out.sync_calls;
  return out;
}

}  // namespace gprof::analysis
