// PLACEHOLDER (in memory) until the bounded version lands: the throughput
// lines of one file fed record by record.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/model/steps.h"

namespace gprof::analysis {

class ThroughputStream {
 public:
  explicit ThroughputStream(std::vector<std::string> step_patterns = {});
  void sync_call(uint64_t start_ns, uint64_t end_ns) { syncs_.push_back({start_ns, end_ns}); }
  void work(uint32_t device, uint64_t start_ns, uint64_t end_ns) {
    work_[device].push_back({start_ns, end_ns});
  }
  void range(const std::string& name, uint64_t start_ns, uint64_t end_ns) {
    steps_.add(name, start_ns, end_ns);
  }
  FileThroughput finish(uint32_t file, uint32_t pid, uint64_t first_ns, uint64_t last_ns);

 private:
  StepFinder steps_;
  std::vector<Interval> syncs_;
  std::map<uint32_t, std::vector<Interval>> work_;
};

}  // namespace gprof::analysis
