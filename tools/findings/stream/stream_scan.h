// The first step of a file's streamed analysis (streamed_analysis.h): the
// reader's records into external sorts, with what the in-memory path's
// loader (profile.h) and TimelineBuilder say of the file besides: its
// FileInfo, the names of its GPU rows and ranges, its thread names. Push/pop
// ranges pair as they come (a stack per thread and domain, as RangePairing
// does); start/end events are sorted by id and paired after the file.
//
// External correlations (gprof's pushed ids above CUPTI's, formats/
// correlation_ids.h) are sorted by CUPTI id and applied to the GPU records
// by the join (join(), analysis/read/correlation_join.h). CUPTI gaps are
// counted as the records come (gap_tally.h); the join tells the tally which
// launches got work (worked), and join() gives FileInfo.gaps.
//
// CUPTI's ids are unwrapped as they are read (stream_ids.h). Files whose
// pairing the stream does not reproduce are refused (why()): pushed ids
// from 1 (an older gprof's). A file with a capture window has its GPU
// records counted once paired (WindowedGpu below), through their external
// correlations, and in its CUPTI gaps' counts then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/read/reader.h"
#include "tools/analysis/model/gap_tally.h"
#include "tools/analysis/model/stream_ids.h"
#include "tools/analysis/read/correlation_join.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/spill_sorter.h"
#include "tools/findings/stream/stream_records.h"

namespace gprof::findings::stream {

template <typename T, typename Less>
using Sorted = analysis::SpillSorter<T, Less>;

// What each of a scan's sorts (and its file's later joins, streamed_file.h)
// keeps in memory before it spills: 2 MiB, not the reader's usual 8. On
// `gpuprof-gen` files, the shared 2-core machine: `analyze -j 1` of 10M
// records 3.15-4.4 s and 98 MB with 8 MiB, 3.3-3.9 s and 55 MB with 2 MiB;
// of 50M records 16.6 s and 106 MB against 14.7 s and 62 MB; `report --view
// memory` of 50M records 4.5-4.6 s and 51 MB against 3.7-3.8 s and 36 MB
// (launches: 6.8-7.5 s against 6.2-8.2 s). Runs that fit the caches sort
// faster than the fewer runs save, and each file analyze reads at once
// (--jobs) holds a dozen sorts.
inline constexpr size_t kScanSortBytes = size_t{2} << 20;

class FileScan final : public RecordVisitor {
 public:
  // `ranges`: keep the paired ranges (ranges_by_thread, ranges_by_start)
  // for the findings' joins; without, ranges are paired and counted only,
  // as FileInfo says them (report's launches and memory views).
  // `sort`: how its sorters and the join's are made (correlation_join.h).
  FileScan(analysis::FileInfo& info, std::vector<std::string>& gpu_names, bool ranges = true,
           const analysis::SortResources& sort = analysis::SortResources{kScanSortBytes});

  void on_header(const pb::FileHeader& header) override;
  void on_string(const pb::StringEntry& entry) override;
  void on_api(const ApiRecord& record) override;
  void on_range(const RangeEvent& event) override;
  void on_gpu(const GpuRecord& record) override;
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override;
  void on_cupti(const pb::CuptiStatus& status) override;
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override;
  void on_footer(const pb::Footer& footer) override { facts_.footer(footer); }
  bool wants_more() override { return why_.empty(); }

  // The file was recorded with a capture window (has_capture_window): its
  // GPU records are counted in FileInfo and the span by WindowedGpu, as the
  // join hands them out, not as they are read.
  bool windowed() const { return windowed_; }

  // After the read: closes open ranges, pairs start/end events, names
  // ranges and threads. False when the file is not for the stream (why()).
  bool finish();
  const std::string& why() const { return why_; }
  // A GPU work record paired with the call of this correlation (the join).
  void worked(uint64_t correlation) { gaps_.worked(correlation); }
  // After finish(): pairs the GPU records with `calls` (sorted by
  // correlation; any of the file's calls) and hands the join to `visit`
  // (correlation_join.h), then gives FileInfo.gaps.
  template <typename Visit>
  void join(Sorted<CallRecord, ByCorrelation>& calls, Visit& visit) {
    analysis::pair_by_correlation(calls, gpu, externals_, called_,
                                  analysis::PairingMode::kCorrelation, sort_, visit);
    finish_gaps();
  }
  // With a capture window: a GPU record counted once paired (WindowedGpu),
  // for the gaps' counts.
  void counted_gpu(uint64_t start_ns) { gaps_.gpu(start_ns); }
  const analysis::SortResources& sort() const { return sort_; }
  // The file's kernel names (mangled) by their id in the file.
  const std::unordered_map<uint32_t, std::string>& kernels() const { return facts_.kernels(); }

  // Row names of ranges (range_row_name), by RangeRecord::name.
  const std::vector<std::string>& range_names() const { return range_names_; }

  // The calls: by thread and start for the findings' sweep (`ranges`), else
  // by correlation only, all that the join needs (calls_by_id).
  Sorted<CallRecord, ByThreadStart> calls;
  Sorted<CallRecord, ByCorrelation> calls_by_id;
  Sorted<RangeRecord, RangeNesting> ranges_by_thread;
  Sorted<RangeRecord, ByStart> ranges_by_start;
  Sorted<GpuScan, ByCorrelation> gpu;
  // The span of the calls and GPU work (set_windows without --range); it
  // begins at the first GPU work or call that may issue some (work_begin),
  // else at the first call.
  uint64_t span_begin = UINT64_MAX, span_end = 0, work_begin = UINT64_MAX;

 private:
  struct Open {
    RangeRecord range;
  };
  void refuse(const char* why) {
    if (why_.empty()) why_ = why;
  }
  void seen(uint64_t start_ns, uint64_t end_ns) { facts_.seen(start_ns, end_ns); }
  uint32_t name_key(uint32_t name, uint32_t domain);
  void emit(const RangeRecord& range);
  void pair_start_end(uint64_t last_ns);
  const std::string* string_of(int kind, uint32_t id) const { return facts_.text(kind, id); }

  analysis::FileInfo& info_;
  analysis::FileFacts facts_;
  std::vector<std::string>& gpu_names_;
  analysis::SortResources sort_;
  std::unordered_map<std::string, uint32_t> gpu_name_ids_;
  std::unordered_map<uint64_t, uint32_t> gpu_row_names_;  // gpu_row_name_key -> gpu_names_
  // Kernel ids of GPU records read before their name (a damaged file's
  // frames out of order) -> their gpu_names_ entry, named when the name
  // comes: the in-memory readers name records once the file is read.
  std::unordered_map<uint32_t, uint32_t> unnamed_kernels_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<RangeRecord>> stacks_;  // (tid, domain)
  static int never_received(void*, uint64_t) { return 0; }                    // pairs after reading
  void finish_gaps();
  Sorted<analysis::ExternalId, analysis::ByCuptiId> externals_;
  analysis::PagedBits called_;  // the calls' ids, for the join
  analysis::GapTally gaps_{&FileScan::never_received, nullptr};
  analysis::StreamIds ids_;
  Sorted<StartEvent, ById> starts_;
  Sorted<EndEvent, ById> ends_;
  std::map<uint32_t, uint32_t> thread_names_;         // tid -> NVTX string id
  std::unordered_map<uint64_t, uint32_t> name_keys_;  // domain << 32 | name -> key
  std::vector<std::pair<uint32_t, uint32_t>> keys_;   // key -> (name, domain)
  std::vector<std::string> range_names_;
  uint64_t range_seq_ = 0;
  uint64_t gpu_seq_ = 0;
  uint32_t calls_seen_ = 0;
  std::string why_;
  bool keep_ranges_;
  bool windowed_ = false;
};

// A windowed file's GPU records as the join hands them out: an
// unpaired one that started outside every window is work issued outside
// them, left out and counted as such (CaptureWindows, profile.cc); the
// others count in FileInfo and the span as FileScan counts those of other
// files as it reads them. Without a window: nothing to do, nothing left out.
class WindowedGpu {
 public:
  // After scan.finish().
  WindowedGpu(FileScan& scan, analysis::FileInfo& info)
      : scan_(scan), info_(info), window_(scan.windowed(), info.cupti) {}
  // issued(g)
  void paired(const GpuScan& g) {
    if (scan_.windowed()) count(g);
  }
  // unpaired(g): false when it is left out.
  bool unpaired(const GpuScan& g);

 private:
  void count(const GpuScan& g);

  FileScan& scan_;
  analysis::FileInfo& info_;
  analysis::CaptureWindows window_;
};

}  // namespace gprof::findings::stream
