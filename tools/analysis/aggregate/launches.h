// The launches view (DESIGN.md §5, "as nsys does"): for each API call that
// issued GPU work,
//   API time   = the call's duration,
//   queue time = start of its first GPU work - end of the call (signed: work
//                may start before the call returns),
//   GPU time   = last end - first start of its GPU work (one kernel, copy or
//                set: its duration; a graph launch: the span of its nodes),
// summarized per key: the row name of the call's GPU work when it is one
// record, the API display name when it is several (graph launches).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

// Of signed nanosecond samples; the median of an even count is the mean of
// the two middle values.
struct Summary {
  double avg = 0;
  double median = 0;
  int64_t min = 0;
  int64_t max = 0;
};

// Sorts `samples`; all zero when empty.
Summary summarize(std::vector<int64_t>& samples);

struct LaunchRow {
  std::string name;
  uint64_t count = 0;  // # of Calls
  Summary api;
  Summary queue;
  Summary gpu;
};

class LaunchesVisitor : public ProfileVisitor {
 public:
  // `scope`: only calls in it (nullptr: all).
  explicit LaunchesVisitor(const CallScope* scope = nullptr) : scope_(scope) {}

  void on_launch(const Launch& launch) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

  // One row per key, in order of first appearance; the visitor is empty
  // afterwards. Memory until then: 24 bytes per launch.
  std::vector<LaunchRow> finish();

  // Adds the samples of `other` (files read apart: parallel_files.h) after
  // this visitor's, keys in their order of first appearance; `other` is
  // empty afterwards.
  void merge(LaunchesVisitor&& other);

 private:
  struct Samples {
    std::string name;
    std::vector<int64_t> api, queue, gpu;
  };
  struct Sample {  // one launch of the current file, until its scope is known
    uint32_t call;
    std::string_view name;  // owned by the loader or static until the file ends
    int64_t api, queue, gpu;
  };
  void add(const Sample& sample);

  const CallScope* scope_;
  std::vector<Sample> pending_;
  std::vector<Samples> keys_;
  std::map<std::string, size_t, std::less<>> index_;
};

}  // namespace gprof::analysis
