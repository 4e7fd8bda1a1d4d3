// The throughput lines of one file (throughput.h: steps, GPU busy per
// device, synchronize time) from a stream of records in any order, in memory
// that does not grow with the number of records: what ThroughputVisitor
// without --range gives, field for field, for the same records.
//
// Contract, per file:
//   - sync_call() for every API call of ApiCategory::kSync (its CPU start
//     and end, whatever they are);
//   - work() for every GPU record that is work (GpuActivity::is_work():
//     kernels, copies, sets; not sync records) that the reader hands out
//     (records without a timestamp are not), paired or not, with its device;
//   - range() for every paired NVTX range that is not a mark, with its row
//     name (RangeSpan::name);
//   - in any order and interleaving; then finish() with the file's
//     FileInfo::first_ns and last_ns, which returns the file's line and
//     makes the stream ready for the next file.
//
// Memory: the step candidates (one per range whose name matches a step
// pattern, 24 bytes each: thousands, not millions) plus, per device,
// covered_length_stream.h (about 2.3 MiB at the default limits, and 16 KiB
// per late run while merging or reading them back, a few dozen at most),
// plus clipped_sum_stream.h for the synchronize calls (64 KiB + 56 B per
// chunk summary, at most 4096). Beyond, intervals go to anonymous temporary
// files (16 bytes each) and only those under the window's edges are read
// back. A temporary file that cannot be made, written or read throws
// std::runtime_error (from any call).
//
// One thread per object; objects on several threads share nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/clipped_sum_stream.h"
#include "tools/analysis/aggregate/covered_length_stream.h"
#include "tools/analysis/aggregate/spill_limits.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/model/steps.h"

namespace gprof::analysis {

class ThroughputStream {
 public:
  // `step_patterns`: as ThroughputVisitor's (empty: default_step_patterns()).
  explicit ThroughputStream(std::vector<std::string> step_patterns = {},
                            const SpillLimits& limits = {});

  void sync_call(uint64_t start_ns, uint64_t end_ns) { syncs_.add(start_ns, end_ns); }
  void work(uint32_t device, uint64_t start_ns, uint64_t end_ns) {
    if (device != last_device_ || last_ == nullptr) {
      last_ = &devices_.try_emplace(device, limits_).first->second;
      last_device_ = device;
    }
    last_->busy.add(start_ns, end_ns);
    if (last_->last_ns == 0 || start_ns < last_->first_ns) last_->first_ns = start_ns;
    if (end_ns > last_->last_ns) last_->last_ns = end_ns;
  }
  void range(const std::string& name, uint64_t start_ns, uint64_t end_ns) {
    steps_.add(name, start_ns, end_ns);
  }
  // range() for a name whose step pattern the caller looked up once.
  size_t step_pattern(std::string_view name) const { return steps_.pattern_of(name); }
  void range(size_t step_pattern, uint64_t start_ns, uint64_t end_ns) {
    steps_.add(step_pattern, start_ns, end_ns);
  }

  // `first_ns`, `last_ns`: the file's earliest start and latest end of any
  // record (FileInfo), the window when no steps were found.
  FileThroughput finish(uint32_t file, uint32_t pid, uint64_t first_ns, uint64_t last_ns);

 private:
  SpillLimits limits_;
  StepFinder steps_;
  ClippedSumStream syncs_;
  struct Device {
    explicit Device(const SpillLimits& limits) : busy(limits) {}
    CoveredLengthStream busy;
    uint64_t first_ns = 0;  // its first work's start, last work's end (DeviceBusy)
    uint64_t last_ns = 0;
  };
  std::map<uint32_t, Device> devices_;  // by ordinal, as the report lists them
  uint32_t last_device_ = 0;
  Device* last_ = nullptr;  // devices_[last_device_]: records come in runs of one device
};

}  // namespace gprof::analysis
