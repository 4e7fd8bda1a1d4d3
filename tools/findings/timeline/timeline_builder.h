// Builds a Timeline (timeline.h) per file from the loader's callbacks, and
// places every call in its innermost range, its step and the --range scope.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tools/analysis/read/profile.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

struct Scope {
  std::vector<std::string> ranges;  // --range patterns; empty: everything
  std::vector<std::string> steps;   // --step patterns; empty: the defaults (steps.h)
  std::vector<std::string> data;    // --data-range patterns; empty: default_data_patterns()
};

// The ranges in which a training loop waits for its next batch: torch's
// DataLoader iterator ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
// as record_function and emit_nvtx name it) and the names people give theirs.
std::vector<std::string> default_data_patterns();

class TimelineBuilder : public analysis::ProfileVisitor {
 public:
  explicit TimelineBuilder(Scope scope);

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_header(uint32_t file, const pb::FileHeader& header) override;
  void on_api(const analysis::ApiCall& call) override;
  void on_range(const analysis::RangeSpan& span) override;
  void on_gpu(const analysis::GpuActivity& activity) override;
  void on_file_end(uint32_t file, const analysis::FileInfo& info) override;

  // One per file read, in order; empty afterwards.
  std::vector<Timeline> take() { return std::move(timelines_); }

 private:
  Timeline& current() { return timelines_.back(); }
  void place_calls(Timeline& timeline) const;
  void find_steps(Timeline& timeline) const;
  void set_windows(Timeline& timeline) const;
  void find_data_loading(Timeline& timeline) const;

  Scope scope_;
  std::vector<Timeline> timelines_;
  std::unordered_map<std::string, uint32_t> name_ids_;  // the current file's
};

}  // namespace gprof::findings
