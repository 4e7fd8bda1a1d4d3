#include "tools/analysis/aggregate/throughput_stream.h"

#include <utility>

namespace gprof::analysis {

ThroughputStream::ThroughputStream(std::vector<std::string> step_patterns,
                                   const SpillLimits& limits)
    : limits_(limits),
      steps_(step_patterns.empty() ? default_step_patterns() : std::move(step_patterns)),
      syncs_(limits) {}

FileThroughput ThroughputStream::finish(uint32_t file, uint32_t pid, uint64_t first_ns,
                                        uint64_t last_ns) {
  FileThroughput out;
  out.file = file;
  out.pid = pid;
  out.steps = steps_.finish();
  out.window_begin_ns = out.steps ? out.steps->first_start_ns : first_ns;
  out.window_end_ns = out.steps ? out.steps->last_end_ns : last_ns;
  for (auto& [ordinal, device] : devices_)
    out.devices.push_back(DeviceBusy{ordinal,
                                     device.busy.covered(out.window_begin_ns, out.window_end_ns),
                                     device.first_ns, device.last_ns});
  const ClippedSum syncs = syncs_.sum(out.window_begin_ns, out.window_end_ns);
  out.sync_ns = syncs.ns;
  out.sync_calls = syncs.overlapping;
  devices_.clear();
  last_ = nullptr;
  syncs_ = ClippedSumStream(limits_);
  return out;
}

}  // namespace gprof::analysis
