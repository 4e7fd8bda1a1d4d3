// Several analyses in one pass over the files: each callback goes to the
// visitors in the order given, so a visitor may rely on an earlier one's
// on_file_end having run (a CallScope before the views that ask it).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

class VisitorChain : public ProfileVisitor {
 public:
  explicit VisitorChain(std::vector<ProfileVisitor*> visitors) : visitors_(std::move(visitors)) {}

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_header(uint32_t file, const pb::FileHeader& header) override;
  void on_string(uint32_t file, const pb::StringEntry& entry) override;
  void on_api(const ApiCall& call) override;
  void on_range(const RangeSpan& span) override;
  void on_gpu(const GpuActivity& activity) override;
  void on_launch(const Launch& launch) override;
  void on_footer(uint32_t file, const pb::Footer& footer) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

 private:
  std::vector<ProfileVisitor*> visitors_;
};

}  // namespace gprof::analysis
