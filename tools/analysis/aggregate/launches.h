// The launches view (docs/architecture.md §7, "as nsys does"): for each API call that
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
#include <utility>
#include <vector>

#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/spill_sorter.h"

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

  // One launch under `name` (its work's row name, or the API's display name
  // for several), as on_launch takes it apart: the call's span, the first
  // start and last end of its work. For readers that pair without the
  // loader (findings/stream/issued_work.h); never scoped.
  void add_launch(std::string_view name, uint64_t call_start, uint64_t call_end,
                  uint64_t first_start, uint64_t last_end);

  // One row per key, in order of first appearance; the visitor is empty
  // afterwards. Memory until then: the keys, and an external sort of the
  // samples (24 bytes a launch, spilled to a temporary file beyond 4 MiB)
  // that gives the exact medians.
  std::vector<LaunchRow> finish();

  // Adds the samples of `other` (files read apart: parallel_files.h) after
  // this visitor's, keys in their order of first appearance; `other` is
  // empty afterwards.
  void merge(LaunchesVisitor&& other);

 private:
  struct Key {
    std::string name;
    uint64_t count = 0;
  };
  // One of a launch's three times, sorted by key, then time.
  struct Value {
    int64_t ns;
    uint32_t key;
    uint32_t metric;  // 0 API, 1 queue, 2 GPU
  };
  struct ByKeyValue {
    bool operator()(const Value& a, const Value& b) const {
      if (a.key != b.key) return a.key < b.key;
      if (a.metric != b.metric) return a.metric < b.metric;
      return a.ns < b.ns;
    }
    // The same order as integers (spill_sorter.h radix-sorts them): a
    // million launches' values sorted by comparisons were a fifth of the view.
    static std::pair<uint64_t, uint64_t> prefix(const Value& v) {
      return {uint64_t{v.key} << 2 | v.metric, static_cast<uint64_t>(v.ns) ^ (uint64_t{1} << 63)};
    }
  };
  struct Sample {  // one launch of the current file, until its scope is known
    uint32_t call;
    std::string_view name;  // owned by the loader or static until the file ends
    int64_t api, queue, gpu;
  };
  void add(const Sample& sample);
  uint32_t key_of(std::string_view name);

  static constexpr size_t kBudget = (size_t{4} << 20) / sizeof(Value);
  const CallScope* scope_;
  std::vector<Sample> pending_;
  std::vector<Key> keys_;
  std::map<std::string, uint32_t, std::less<>> index_;
  analysis::SpillSorter<Value, ByKeyValue> values_{kBudget};
};

}  // namespace gprof::analysis
