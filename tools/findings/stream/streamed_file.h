// One file of a streamed analysis (streamed_analysis.h): read once into
// external sorts (stream_scan.h), then joined step by step as the in-memory
// TimelineBuilder would place and pair its records, each step reading the
// last one's output in the order it needs:
//   1. calls by thread and start, swept with the thread's ranges: each
//      call's innermost range, --range scope and step;
//   2. calls and GPU records by correlation: which call issued what, its
//      first GPU record and GPU time;
//   3. calls by thread and start: excessive-sync and launch-bound;
//   4. GPU records by start (Timeline::work's order): the copy rules,
//      memcpy-dtoh-sync's questions and gpu-idle's busy intervals, then
//      those answered by further sorts (kernel ends by device, busy time by
//      device, gaps by start against ranges and calls by start).
// Steps 1 and 2 and the setup (where gpu-idle's window begins) touch no
// tally: they run on any thread, several files at once (prepare_file);
// steps 3 and 4 feed the tallies in file order (PreparedFile::feed).
// Memory: the sorts' buffers, the distinct names, the steps and --range
// windows, and what is open at a time (nested ranges, a gap's overlaps).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tools/analysis/read/profile.h"
#include "tools/findings/rules/rule_tallies.h"
#include "tools/findings/timeline/timeline.h"
#include "tools/findings/timeline/timeline_builder.h"

namespace gprof::findings::stream {

// Every rule's tally, fed file by file.
struct Tallies {
  explicit Tallies(const Thresholds& thresholds);
  // A file read in memory (one the stream declined), as each rule's run()
  // would add it.
  void add_timeline(const Timeline& timeline);
  std::optional<Finding> finish(std::string_view rule, const RuleContext& context);

  // fn(tally) for each rule's tally: the one list that add_timeline and
  // finish go through, each tally naming its rule (kRule).
  template <typename Fn>
  void each(Fn&& fn) {
    fn(excessive_sync);
    fn(launch_bound);
    fn(memcpy_dtoh_sync);
    fn(pageable_memcpy);
    fn(small_memcpy);
    fn(gpu_idle);
    fn(straggler);
    fn(exposed_comm);
  }

  ExcessiveSyncTally excessive_sync;
  LaunchBoundTally launch_bound;
  MemcpyDtohSyncTally memcpy_dtoh_sync;
  PageableMemcpyTally pageable_memcpy;
  SmallMemcpyTally small_memcpy;
  GpuIdleTally gpu_idle;
  StragglerTally straggler;
  ExposedCommTally exposed_comm;
};

// A file read into its sorts and joined as far as no tally is concerned
// (steps, windows, calls placed in ranges, calls paired with their GPU
// work, the setup): the part that runs on any thread, several files at
// once. feed() then adds it to the tallies, which must see the files in
// their order (gpu-idle numbers gaps across files, straggler lists ranks).
class PreparedFile {
 public:
  ~PreparedFile();
  PreparedFile(const PreparedFile&) = delete;
  PreparedFile& operator=(const PreparedFile&) = delete;
  // Once; frees the sorts.
  void feed(Tallies& tallies);

 private:
  friend std::unique_ptr<PreparedFile> prepare_file(uint32_t, const std::string&, const Scope&,
                                                    const GpuIdleTally&, Timeline&,
                                                    analysis::FileInfo&, std::string&);
  PreparedFile();
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Reads file `index` at `path`. `timeline` gets what the rules ask of a
// file besides its records (path, rank, steps, windows, names; no calls,
// ranges or work), `info` what load_file would say; both must outlive the
// PreparedFile, which refers to them. `rules`: gpu-idle's settings (read
// only). Its sorts keep kScanSortBytes each (stream_scan.h). nullptr: the
// file needs the in-memory path (`why` says why).
std::unique_ptr<PreparedFile> prepare_file(uint32_t index, const std::string& path,
                                           const Scope& scope, const GpuIdleTally& rules,
                                           Timeline& timeline, analysis::FileInfo& info,
                                           std::string& why);

}  // namespace gprof::findings::stream
