// Steps, throughput and GPU utilization of each file (one process):
//   window:      first step start to last step end, or, without steps, the
//                first to the last record of the file;
//   steps:       steps.h; steps/second over the window;
//   GPU busy:    per device, the union of its kernels, copies and sets
//                clipped to the window;
//   synchronize: host time in synchronize calls (cudaDeviceSynchronize,
//                cudaStreamSynchronize, ...: ApiCategory kSync) clipped to
//                the window, summed over threads.
// Not limited by --range: it describes the run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/model/steps.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

struct DeviceBusy {
  uint32_t device = 0;
  uint64_t busy_ns = 0;
  // The device's first work start and last work end (not clipped): the span
  // a run without steps can measure its GPU by, start-up left out.
  uint64_t first_ns = 0;
  uint64_t last_ns = 0;
};

struct FileThroughput {
  uint32_t file = 0;
  uint32_t pid = 0;
  std::optional<StepStats> steps;
  uint64_t window_begin_ns = 0;
  uint64_t window_end_ns = 0;
  std::vector<DeviceBusy> devices;  // devices that ran work, by ordinal
  uint64_t sync_ns = 0;
  uint64_t sync_calls = 0;  // overlapping the window

  uint64_t window_ns() const { return window_end_ns - window_begin_ns; }
  // Nothing worth a report line: no steps and no GPU work.
  bool empty() const { return !steps && devices.empty(); }
};

class ThroughputVisitor : public ProfileVisitor {
 public:
  // `step_patterns`: --step (glob_match); empty: default_step_patterns().
  // `scope` (--range): GPU busy time and synchronize calls count only the work
  // and calls in scope (it must see each file before this visitor); the
  // window stays the steps', or the file's.
  explicit ThroughputVisitor(std::vector<std::string> step_patterns = {},
                             const CallScope* scope = nullptr);

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_header(uint32_t file, const pb::FileHeader& header) override;
  void on_api(const ApiCall& call) override;
  void on_range(const RangeSpan& span) override;
  void on_gpu(const GpuActivity& activity) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

  // One per file read, in order.
  const std::vector<FileThroughput>& files() const { return files_; }

 private:
  static constexpr uint32_t kNoCall = UINT32_MAX;
  StepFinder steps_;
  const CallScope* scope_;
  uint32_t pid_ = 0;
  // With the index of the call (the sync itself, the call that issued the
  // work; kNoCall: unpaired), for the scope, known at the file's end.
  std::vector<std::pair<Interval, uint32_t>> syncs_;
  std::map<uint32_t, std::vector<std::pair<Interval, uint32_t>>> work_;  // by device
  std::vector<FileThroughput> files_;
};

}  // namespace gprof::analysis
