// Turns loaded files into the rows of the ops view (DESIGN.md §5):
// - one row per API display name (`__cudaLaunchKernel` shows as
//   `cudaLaunchKernel`) with its CPU time and, as Self CUDA and CUDA total,
//   the durations of the GPU work (kernels, copies, sets) its calls issued;
// - one row per GPU activity name (gpu_names.h) with its executions and their
//   durations. Sync records are no rows: they are waits, not GPU work.
// A file without GPU records (a CPU-only capture) instead gets one kernel row
// per launched kernel whose # of Calls counts launches, with no GPU time.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/gpu_names.h"
#include "tools/analysis/key_averages.h"
#include "tools/analysis/profile.h"

namespace gprof::analysis {

class ApiRowsVisitor : public ProfileVisitor {
 public:
  explicit ApiRowsVisitor(KeyAverages& out) : out_(out) {}

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_api(const ApiCall& call) override;
  void on_gpu(const GpuActivity& activity) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

 private:
  KeyAverages::Key api_key(ApiId api, const ApiInfo& info);

  KeyAverages& out_;
  std::unordered_map<uint16_t, KeyAverages::Key> api_keys_;
  // This file's GPU row names (one string per name, owned by the loader):
  // saves a string lookup per GPU record.
  std::unordered_map<const std::string*, KeyAverages::Key> gpu_keys_;
  // This file's kernel launches by kernel name (nullptr: unknown), in order
  // of first launch; rows only if the file turns out to have no GPU records.
  std::vector<std::pair<const std::string*, uint64_t>> launches_;
  std::unordered_map<const std::string*, size_t> launch_index_;
};

}  // namespace gprof::analysis
