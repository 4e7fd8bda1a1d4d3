// What `info` counts of a file's calls and strings: calls per API, failed
// calls per API and error, threads, kernel and graph launches, calls per
// libcudart major. Fed as the file streams past (a RecordVisitor beside the
// report's stream, reading the batches' columns), or by the in-memory
// loader (calls()), with the same result.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/read/reader.h"
#include "tools/analysis/read/profile.h"

namespace gprof::cli {

class CallCounts final : public RecordVisitor {
 public:
  void on_string(const pb::StringEntry& entry) override { ++strings_[entry.kind()]; }
  void on_api(const ApiRecord& record) override;
  void on_api_batch(const ApiBatch& batch) override;

  // Back to nothing counted (a stream that gave up part of the way).
  void clear();

  // The same counts from the in-memory loader's calls.
  analysis::ProfileVisitor& calls() { return adapter_; }

  // By API display name (the name report and trace show): APIs that share
  // one are counted together.
  std::map<std::string_view, uint64_t> per_api() const;
  std::map<std::pair<std::string_view, int>, uint64_t> failures() const;
  uint64_t strings(int kind) const;
  size_t threads() const { return threads_.size(); }
  uint64_t launches() const { return launches_; }
  // Launches of graphs: each runs a graph's kernels (counted under GPU records).
  uint64_t graph_launches() const { return graph_launches_; }
  // Calls by the libcudart major they went to; 0: unknown (CUPTI callbacks).
  const std::map<int, uint64_t>& runtimes() const { return runtimes_; }

 private:
  class Adapter final : public analysis::ProfileVisitor {
   public:
    explicit Adapter(CallCounts& counts) : counts_(counts) {}
    void on_string(uint32_t /*file*/, const pb::StringEntry& entry) override {
      counts_.on_string(entry);
    }
    void on_api(const analysis::ApiCall& call) override { counts_.on_api(call.record); }

   private:
    CallCounts& counts_;
  };

  void count(uint32_t api, int32_t result, uint32_t runtime, uint64_t n);

  std::vector<uint64_t> calls_;                            // by ApiId
  std::map<std::pair<uint32_t, int>, uint64_t> failures_;  // (ApiId, result)
  std::map<int, uint64_t> strings_;                        // by StringEntry::Kind
  std::set<uint32_t> threads_;
  uint64_t launches_ = 0;
  uint64_t graph_launches_ = 0;
  std::map<int, uint64_t> runtimes_;
  Adapter adapter_{*this};
};

}  // namespace gprof::cli
