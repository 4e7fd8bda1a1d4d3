// Turns the API calls of loaded files into key-average rows (DESIGN.md §5):
// one row per API display name (`__cudaLaunchKernel` shows as
// `cudaLaunchKernel`) with its CPU time, and one row per launched kernel
// (demangled; "<unknown kernel>" when the file has no name for it) whose
// # of Calls counts launches and which later receives the GPU time.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "tools/analysis/key_averages.h"
#include "tools/analysis/profile.h"

namespace gprof::analysis {

inline constexpr const char* kUnknownKernel = "<unknown kernel>";

class ApiRowsVisitor : public ProfileVisitor {
 public:
  explicit ApiRowsVisitor(KeyAverages& out) : out_(out) {}

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_api(const ApiCall& call) override;

 private:
  KeyAverages& out_;
  std::unordered_map<uint16_t, KeyAverages::Key> api_keys_;
  std::unordered_map<uint32_t, KeyAverages::Key> kernel_keys_;  // this file's kernel ids
};

}  // namespace gprof::analysis
