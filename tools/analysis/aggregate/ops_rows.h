// The model behind the key-averages views (docs/architecture.md §7): NVTX ranges, API
// calls and GPU activities of each file, nested and attributed as
// cpu_tree.h describes, into the rows of a KeyAverages:
//   - a row per range name and per API display name (`__cudaLaunchKernel`
//     shows as `cudaLaunchKernel`), with CPU, CUDA and memory columns;
//   - a row per GPU activity name (gpu_names.h): kernels, copies, sets, with
//     self = total = their durations. Sync records are no rows: they are
//     waits, not work. A file without GPU records instead gets one kernel row
//     per launched kernel whose # of Calls counts launches, with no GPU time;
//   - "[memory]": the allocations and frees made outside any push/pop range
//     (# of Calls: how many moved memory), as torch's [memory] row.
// A GPU activity is in the report's scope when the call that issued it is
// (in range); --top-level-only keeps GPU rows whole, as torch does (device
// events have no CPU parent there), and so does it [memory].
//
// Memory: per file until its end, 48 bytes per call and range; with --range
// or --group-by thread, where each record's row is known only at the end,
// another 16 per GPU record and 8 per kernel launch.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/memory_ledger.h"
#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/model/cpu_tree.h"
#include "tools/analysis/model/range_windows.h"
#include "tools/analysis/model/row_labels.h"
#include "tools/analysis/read/interner.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

inline constexpr const char* kMemoryRow = "[memory]";

struct OpsOptions {
  GroupBy group_by = GroupBy::kName;
  // --range: keep what is inside ranges whose row name matches one of these
  // (glob_match); empty: everything. A push/pop range scopes its descendants
  // on its thread; a start/end range the calls and ranges of any thread of
  // its process that lie within its interval.
  std::vector<std::string> ranges;
  bool top_level_only = false;
};

class OpsRowsVisitor : public ProfileVisitor, public CallScope {
 public:
  explicit OpsRowsVisitor(KeyAverages& out, OpsOptions options = {});

  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_header(uint32_t file, const pb::FileHeader& header) override;
  void on_api(const ApiCall& call) override;
  void on_range(const RangeSpan& span) override;
  void on_gpu(const GpuActivity& activity) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

  bool filters() const override { return !options_.ranges.empty(); }
  bool contains(uint32_t index) const override;

  // Whether some file had an allocation or free that moved memory (the
  // report then shows the memory columns).
  bool saw_memory() const { return saw_memory_; }

 private:
  static constexpr uint32_t kNoCall = UINT32_MAX;
  struct GpuWork {
    uint64_t duration_ns;
    uint32_t call;  // kNoCall: unpaired
    uint32_t label;
  };
  struct Launch {  // a launch call, for the kernel rows of a CPU-only file
    uint32_t call;
    uint32_t label;
  };
  struct Totals {  // of a GPU row's label, when no record needs its call later
    uint64_t count = 0;
    uint64_t duration_ns = 0;
  };

  uint32_t api_name(const ApiInfo& info);
  uint32_t interned(std::unordered_map<const std::string*, uint32_t>& cache,
                    const std::string* text, bool demangled);
  uint32_t gpu_group(const GpuRecord& record);
  void regroup_by_thread(const FileInfo& info);
  void mark_windows();
  void add_gpu_rows(const FileInfo& info);
  bool call_in_scope(uint32_t call) const;
  // Whether GPU records and launches are kept one by one until the file
  // ends (their rows depend on the scope or the thread of their call), or
  // summed by label as they come.
  // Rows keyed by their file: --group-by process or rank.
  bool by_file() const {
    return options_.group_by == GroupBy::kProcess || options_.group_by == GroupBy::kRank;
  }
  bool per_record() const { return filters() || options_.group_by == GroupBy::kThread; }

  KeyAverages& out_;
  const OpsOptions options_;
  Interner strings_;
  RowLabels labels_{strings_};
  std::unordered_map<uint16_t, uint32_t> api_names_;  // ApiId -> display name id
  bool saw_memory_ = false;

  // The current file.
  std::vector<CpuNode> nodes_;           // calls (id = ApiCall::index), then ranges
  std::vector<GpuWork> work_;            // per_record()
  std::vector<Launch> launches_;         // per_record()
  std::vector<Totals> work_totals_;      // by label, otherwise
  std::vector<uint64_t> launch_counts_;  // by label, otherwise
  // Labels in the order of their first record: the order rows appear in.
  std::vector<uint32_t> work_order_;
  std::vector<uint32_t> launch_order_;
  RangeWindows windows_;  // start/end ranges matching --range
  AllocationLedger ledger_;
  std::vector<uint8_t> results_;  // CpuNodeResult by node id, once the file has ended
  uint32_t process_ = Interner::kEmpty;
  // Names owned by the loader until the file ends, by address.
  std::unordered_map<const std::string*, uint32_t> gpu_names_;
  std::unordered_map<const std::string*, uint32_t> kernel_names_;
  std::unordered_map<const std::string*, uint32_t> range_names_;
};

}  // namespace gprof::analysis
