// One file's events, read once with the streaming reader and kept outside
// memory: every event becomes a self-contained Item (trace_item.h) in a
// sorter that spills to a temporary file (spill_sorter.h), so that memory
// does not grow with the file. What the loader (analysis/profile.h) does in
// memory is done here with sorters too: GPU records are paired with their
// calls by a merge-join on the correlation (after the file's external
// correlations, analysis/read/call_pairing.h), then numbered as the loader hands them out (the
// unpaired in file order, then the paired by call and start), which fixes
// flow ids and the order of GPU tracks. NVTX ranges are paired as they
// stream past (range_stream.h). Kept in memory: the string tables, the
// tracks, the open NVTX ranges and the live allocations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/read/reader.h"
#include "tools/analysis/aggregate/memory_ledger.h"
#include "tools/analysis/model/correlation_unwrap.h"
#include "tools/analysis/model/gap_tally.h"
#include "tools/analysis/model/range_stream.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/interner.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/spill_merge.h"
#include "tools/analysis/read/spill_sorter.h"
#include "tools/analysis/read/work_progress.h"
#include "tools/trace/event_filter.h"
#include "tools/trace/step_ranges.h"
#include "tools/trace/trace_item.h"

namespace gprof::trace {

struct CallKey;

// A thread of the process, a stream of a device, or where a process's or
// device's counters go (tid 0).
struct Track {
  bool gpu;
  uint32_t device;  // gpu only
  uint32_t tid;     // OS thread id, or CUPTI stream id
  bool slices;      // holds more than counters, before the cut
};

// What each sorter of one file keeps in memory before it spills (bytes).
// Larger is not faster: runs that stay in the CPU's caches sort faster than
// the bytes they save on the temporary files cost. On a file of 4M records
// (gpuprof-gen), user time was 0.80 s at 512 KiB, 1.01 s at 4 MiB, 1.15 s
// at 8 MiB, and 128 MiB took 40% more CPU time than 8 MiB (page faults of
// fresh memory cost as much system time as the files they saved). Below
// 4 MiB the merge of a large file's many runs reads them in small blocks
// (the read buffers share 4 MiB, spill_sorter.h).
inline constexpr size_t kDefaultSortMemory = size_t{4} << 20;

class FileEvents : public RecordVisitor {
 public:
  // `cut`: what --range keeps needs the ranges' names as they pass.
  // `spill_in_background`: the sorters spill on threads of their own.
  FileEvents(analysis::FileInfo& info, const EventCut& cut, size_t sort_memory,
             bool spill_in_background = false);
  ~FileEvents() override;

  void on_header(const pb::FileHeader& header) override;
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override;
  void on_string(const pb::StringEntry& entry) override;
  void on_api(const ApiRecord& record) override;
  void on_range(const RangeEvent& event) override;
  void on_gpu(const GpuRecord& record) override;
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override;
  void on_cupti(const pb::CuptiStatus& status) override;
  void on_footer(const pb::Footer& footer) override;

  // Which ranges are training steps (--step; empty: the defaults): each gets
  // a ProfilerStep#N annotation (step_ranges.h). Before the file is read.
  void set_step_patterns(std::vector<std::string> patterns) {
    steps_ = StepRanges(std::move(patterns));
  }

  // Once the file is read: pairs ranges and GPU work, adds the counters and
  // fills the FileInfo as load_files would.
  void finish(int64_t to_relative, uint64_t busy_bucket_ns);

  // The kept events in trace order, after finish(). A paired GPU slice's
  // flow end is handed out right after it (sub 1), not stored. `progress`
  // (may be null) is told of the events handed out or cut, up to
  // event_count().
  template <typename F>
  void for_each_kept(F&& f, analysis::WorkProgress* progress = nullptr) {
    // With helper threads, a file that spilled has its runs merged on two
    // (spill_merge.h): the merge was a quarter of this thread's work.
    analysis::SortedRecords<Item, Earlier> sorted(items_, lanes());
    for_each_kept_of(sorted, f, progress);
  }
  // Events before the cut, after finish(): for_each_kept's progress total.
  uint64_t event_count() const { return items_.size() + flow_ends_; }

  const std::vector<Track>& tracks() const { return tracks_; }
  // Whether the track keeps more than counters after the cut. With a cut,
  // the first call for a track with slices costs one more pass over the
  // sorted events.
  bool kept_slices(uint32_t track);
  const analysis::Interner& strings() const { return strings_; }
  uint64_t gpu_count() const { return gpu_count_; }
  uint64_t range_count() const { return ranges_.opened(); }

 private:
  // How many threads merge a sorter's runs (spill_merge.h).
  unsigned lanes() const { return helpers_ ? 2 : 1; }
  template <typename Source, typename F>
  void for_each_kept_of(Source& source, F& f, analysis::WorkProgress* progress) {
    uint64_t handed = 0;  // events not told to `progress` yet
    // Handed out in place; copied only when changed.
    while (const Item* at = source.next()) {
      if (progress != nullptr) {
        handed += at->kind == EventKind::kGpu && at->has_call ? 2 : 1;  // and its flow end
        if (handed >= analysis::kWorkStep) progress->done(std::exchange(handed, 0));
      }
      if (!cut_.keep(*at)) continue;
      if (call_unwrap_ && at->kind == EventKind::kCall && at->sub == 0 &&
          at->call.correlation != 0) {
        Item item = *at;
        item.call.correlation = call_unwrap_->at(item.call.correlation, item.start_ns);
        f(static_cast<const Item&>(item));
        continue;
      }
      f(*at);
      if (at->kind == EventKind::kGpu && at->has_call && cut_.call_kept(call_span(*at))) {
        Item flow_end = *at;
        flow_end.sub = 1;
        f(static_cast<const Item&>(flow_end));
      }
    }
    if (progress != nullptr && handed != 0) progress->done(handed);
  }

  struct Join;
  uint32_t track(bool gpu, uint32_t device, uint32_t tid);
  void add(const Item& item);
  void add_range(const analysis::Range& r, uint64_t number, bool crossing);
  // A range's row name and input shapes (ids), by its NVTX message and domain.
  std::pair<uint32_t, uint32_t> range_name(uint32_t domain, uint32_t message);
  void name_late_range(Item& e);
  bool has_thread_track(uint32_t tid) const;
  void finish_ranges();
  void add_steps();
  void pair_gpu();
  void number_gpu(const GpuRecord& r, const CallKey* call);
  void add_memory_counters();
  void add_busy_counters(int64_t to_relative, uint64_t bucket_ns);
  uint32_t demangled(uint32_t kernel);
  uint32_t row_name(const GpuRecord& r);
  const std::string* string_of(int kind, uint32_t id) const { return facts_.text(kind, id); }
  const std::string* kernel_name(uint32_t id) const { return facts_.kernel(id); }
  void seen(uint64_t start_ns, uint64_t end_ns) { facts_.seen(start_ns, end_ns); }
  bool windowed() const;

  analysis::FileInfo& info_;
  analysis::FileFacts facts_;
  analysis::Interner strings_;
  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> track_index_;
  std::pair<uint64_t, uint32_t> last_track_{0, 0};       // the last key asked for, its track
  std::unordered_map<uint32_t, uint32_t> demangled_;     // file's kernel id -> strings id
  std::pair<uint32_t, uint32_t> last_kernel_{0, 0};      // the last found in demangled_
  std::unordered_map<uint64_t, uint32_t> row_names_;     // gpu_names key -> strings id
  std::pair<uint32_t, uint32_t> last_row_kernel_{0, 0};  // a named kernel's id, its row name
  std::unordered_map<uint32_t, uint32_t> domains_;       // file's id -> strings id
  // (domain, message) -> the row name's id and the input shapes' id
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> range_names_;
  // (domain, message) whose strings were read -> what a range item holds
  struct RangeNames {
    uint32_t name, shapes, domain;  // strings ids
  };
  std::unordered_map<uint64_t, RangeNames> named_ranges_;
  analysis::RangeStream ranges_;
  StepRanges steps_;
  // Ranges of threads without a track yet: tracks are numbered as before
  // ranges streamed (threads with calls by their first call, then the
  // others by their first range), so these wait for finish() with the
  // thread's id in `track`. So do ranges whose message or domain was not
  // read yet when they closed (a damaged file's frames out of order): they
  // are named at the end, as when ranges were paired then.
  analysis::SpillSorter<Item, Earlier> waiting_;
  std::unique_ptr<Join> join_;
  analysis::SpillSorter<Item, Earlier> items_;
  FileCut cut_;
  std::vector<bool> kept_slices_;  // per track, once asked with a cut
  bool helpers_;                   // spill_in_background: helper threads may merge too
  uint32_t calls_ = 0;
  uint64_t gpu_seq_ = 0;
  uint64_t gpu_count_ = 0;
  uint64_t flow_ends_ = 0;  // GPU work with its call: each has a flow end
  uint64_t counters_ = 0;
  // CUPTI gaps' counts as report gives them (gap_tally.h): fed as the file
  // is read, told which launches got work as the pairing hands records out.
  static int never_received(void*, uint64_t) { return 0; }  // pairs after reading
  analysis::GapTally gaps_{&FileEvents::never_received, nullptr};
  bool gaps_counted_ = true;  // false: the trace gives the shim's numbers instead
  // Set where the file's ids wrapped (call_pairing.h): the calls' items are
  // written unwrapped too, so that both ends of a flow say the same.
  std::optional<analysis::CorrelationUnwrap> call_unwrap_;
};

}  // namespace gprof::trace
