// The visitor behind stream_ops_file() (ops_stream.h, which says what it
// computes and how), and what a first pass of it finds for a second: apart
// from the driver that decides on one pass, two or none (ops_stream.cc).
// Internal to aggregate/.
//   ops_stream_visitor.cc  header, strings, API calls, the walk's events, finish;
//   ops_stream_ranges.cc   NVTX ranges and a first pass's windows;
//   ops_stream_gpu.cc      GPU records: pairing, holding, external correlation.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <unordered_map>

#include "formats/read/record_batches.h"
#include "tools/analysis/aggregate/call_tagged_work.h"
#include "tools/analysis/aggregate/call_work_groups.h"
#include "tools/analysis/aggregate/first_event.h"
#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/aggregate/late_device_time.h"
#include "tools/analysis/aggregate/memory_ledger.h"
#include "tools/analysis/aggregate/number_rows.h"
#include "tools/analysis/aggregate/ops_stream.h"
#include "tools/analysis/aggregate/throughput_stream.h"
#include "tools/analysis/model/call_slots.h"
#include "tools/analysis/model/capture_windows.h"
#include "tools/analysis/model/external_ids.h"
#include "tools/analysis/model/gap_tally.h"
#include "tools/analysis/model/glob.h"
#include "tools/analysis/model/nvtx_ranges.h"
#include "tools/analysis/model/range_windows.h"
#include "tools/analysis/model/row_labels.h"
#include "tools/analysis/model/steps.h"
#include "tools/analysis/model/stream_ids.h"
#include "tools/analysis/model/thread_stream.h"
#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/interner.h"
#include "tools/analysis/read/range_names.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis::ops_stream {

// Labels by a small integer id (an API id, an interned kernel id): a vector
// indexed by the id, so that a record's label costs no hashing; ids too
// large for a vector (not what writers make) go to a hash map.
class IdLabels {
 public:
  template <typename Make>
  uint32_t get(uint64_t id, Make&& make) {
    if (id < kDense) {
      if (id < dense_.size() && dense_[id] != kNone) return dense_[id];
      const uint32_t l = make();
      if (id >= dense_.size()) dense_.resize(id + 1, kNone);
      dense_[id] = l;
      return l;
    }
    auto it = sparse_.find(id);
    if (it == sparse_.end()) it = sparse_.emplace(id, make()).first;
    return it->second;
  }

 private:
  static constexpr uint64_t kDense = uint64_t{1} << 20;
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> dense_;
  std::unordered_map<uint64_t, uint32_t> sparse_;
};

// What a call's ApiId says, by raw id (a known one is below 256,
// formats/read/record_batches.h): a lookup per call instead of two.
struct ApiTraits {
  const ApiInfo* info = nullptr;
  bool memory = false;  // allocates or frees (memory_effect)
};
inline const std::array<ApiTraits, 256> kApiTraits = [] {
  std::array<ApiTraits, 256> table{};
  for (size_t id = 0; id < table.size(); ++id) {
    table[id].info = api_info(static_cast<ApiId>(id));
    table[id].memory = memory_effect(static_cast<ApiId>(id)).has_value();
  }
  return table;
}();

// What a first pass over a file finds for the second, when one pass cannot
// know an event's row or scope in time (stream_ops_file()).
struct FirstPass {
  // --group-by stream|device: each call's first work's stream or device.
  CallWorkGroups groups;
  // --range naming start/end ranges: their windows, and the push/pop ranges
  // in one (by their number in the file: pushed before their end is read).
  RangeWindows windows;
  CallSet pushes_in_window;
};
struct PushSpan {  // a push/pop range, for the windows of the first pass
  uint64_t id;
  uint64_t start_ns;
  uint64_t end_ns;
};
struct ById {
  bool operator()(const PushSpan& a, const PushSpan& b) const { return a.id < b.id; }
};

class OpsStream final : public RecordVisitor,
                        public WalkRows,
                        public WalkedEvents,
                        public CallTaggedWork::Sink {
 public:
  // `finding`: filled, as the first of two passes (its rows are not the
  // file's); `found`: read, as the second.
  // `file`: the index of the file among those read together (its rows'
  // places, row_runs.h).
  OpsStream(FileInfo& info, const OpsOptions& options, std::vector<std::string> step_patterns,
            uint32_t file, FirstPass* finding = nullptr, FirstPass* found = nullptr)
      : file_(file),
        info_(info),
        facts_(info),
        options_(options),
        finding_(finding),
        found_(found),
        rules_{filtering_, options.top_level_only},
        throughput_(std::move(step_patterns)) {
    // row() below, read straight by the walk but with labels of NumberRows.
    if (options.group_by != GroupBy::kSeq) by_key_ = &label_rows_;
    if (finding_ != nullptr && !options.ranges.empty()) push_spans_.emplace(kPushSpanBudget);
    process_ = strings_.id("-");
    if (tagged_ || by_work_) slots_.keep_tags();
  }

  const std::string& why() const { return why_; }
  bool saw_memory() const { return saw_memory_; }
  // With --range: each call the walk finds in range goes to `scope` too.
  void mark_scope(CallSet* scope) { scope_out_ = scope; }
  // The stream failed for what two passes answer: a call's work came after
  // the hold let it go, or --range names a start/end range.
  bool needs_two_passes() const { return needs_two_passes_; }

  // RecordVisitor
  // Asked after each frame (reader.h): the end of a frame, when the threads
  // walk what they can (thread_stream.h).
  bool wants_more() override {
    end_frame();
    return why_.empty();
  }
  void on_header(const pb::FileHeader& header) override;
  void on_string(const pb::StringEntry& entry) override;
  // A batch at a time (formats/read/record_batches.h): the thread is looked up
  // once per batch, and no record costs a call through the visitor.
  void on_api_batch(const ApiBatch& batch) override;
  void on_range_batch(const RangeBatch& batch) override;
  void on_gpu_batch(const GpuBatch& batch) override;
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override;
  void on_cupti(const pb::CuptiStatus& status) override {
    facts_.cupti(status);
    if (why_.empty() && !gaps_.status(status)) why_ = gaps_.why();
  }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    facts_.devices(devices);
  }
  void on_footer(const pb::Footer& footer) override { facts_.footer(footer); }

  // WalkRows
  uint32_t key_of(const CpuNode& node) override {
    if (!NumberRows::holds(node.label)) [[likely]]
      first_[node.label].walked(node);
    else
      number_rows_.walked(node.label, node);
    return node.label;
  }
  RowValues& row(uint32_t label) override { return values_of(label); }

  // After the file: the rows into `out`; false (why() says) when the file
  // needs the in-memory path.
  bool finish(KeyAverages& out, std::optional<FileThroughput>* throughput, uint32_t file);

 private:
  struct OpenPush {
    uint32_t id;
    uint64_t start_ns;
    uint32_t label;
    size_t step_pattern;  // ThroughputStream::step_pattern of its name
  };
  struct MemoryCall {
    std::vector<WalkTarget> targets;
    uint32_t label;
    bool under_range;
    bool in_range;
  };
  struct Totals {
    uint64_t count = 0;
    uint64_t duration_ns = 0;
    uint64_t first_seq = UINT64_MAX;  // of its first record counted: the row's place
  };
  struct RangeName {
    std::string row;
    std::string input_shapes;
    uint32_t id;  // of `row` in strings_
    size_t step_pattern;
    bool scope_root = false;  // --range names it
    // The row's label when it does not depend on the op's numbers.
    uint32_t label = kNoLabel;
  };
  static constexpr uint32_t kNoLabel = UINT32_MAX;

  void fail(const char* reason) {
    if (why_.empty()) why_ = reason;
  }
  void seen(uint64_t start_ns, uint64_t end_ns) { facts_.seen(start_ns, end_ns); }
  bool by_file() const {
    return options_.group_by == GroupBy::kProcess || options_.group_by == GroupBy::kRank;
  }
  struct ThreadState {
    std::unique_ptr<ThreadStream> stream;
    uint32_t group = Interner::kEmpty;  // --group-by thread: thread_group()
    std::vector<std::pair<uint32_t, std::vector<OpenPush>>> pushes;  // by domain
    size_t last_domain = 0;  // where the last one asked for is: most often the next
    std::vector<OpenPush>& pushes_of(uint32_t domain) {
      if (last_domain < pushes.size() && pushes[last_domain].first == domain) [[likely]]
        return pushes[last_domain].second;
      return find_pushes(domain);
    }
    [[gnu::noinline]] std::vector<OpenPush>& find_pushes(uint32_t domain) {
      for (last_domain = 0; last_domain < pushes.size(); ++last_domain)
        if (pushes[last_domain].first == domain) return pushes[last_domain].second;
      return pushes.emplace_back(domain, std::vector<OpenPush>{}).second;
    }
  };
  // A thread's records come in batches: the last one asked for is most
  // often the next.
  ThreadState& state(uint32_t tid) {
    if (last_state_ != nullptr && last_tid_ == tid) return *last_state_;
    ThreadState& t = threads_[tid];  // unordered_map: its elements stay where they are
    if (!t.stream) {
      t.stream = std::make_unique<ThreadStream>(rules_, *this, contexts_, *this);
      if (by_thread_) t.group = thread_group(tid);
      if (by_work_ && finding_ == nullptr && found_ == nullptr)
        t.stream->hold_until_ready(kHoldLimit, &held_events_);  // the threads share it
    }
    last_tid_ = tid;
    last_state_ = &t;
    return t;
  }
  void grow(uint32_t label) {
    if (label >= label_rows_.size()) {
      if (label >= label_rows_.capacity()) {
        // By a quarter, not the double a vector grows by: with a row per op
        // (--group-by seq) these are a large part of the memory, and half of
        // a doubled capacity, on average, stood empty.
        const size_t room = std::max<size_t>(size_t{label} + 1, label_rows_.capacity() * 5 / 4);
        label_rows_.reserve(room);
        first_.reserve(room);
      }
      label_rows_.resize(size_t{label} + 1);
      first_.resize(size_t{label} + 1);
    }
  }
  uint32_t label(const RowLabel& l) {
    const uint32_t id = labels_.label(l);
    grow(id);
    return id;
  }
  // --group-by thread: rows are keyed by the bare tid while the file is
  // read, since a thread's name may come last; final_key() puts the name in.
  uint32_t thread_group(uint32_t tid) { return strings_.id(std::to_string(tid)); }
  uint32_t regrouped(uint32_t l, uint32_t group) {
    if (group == Interner::kEmpty) return l;
    const uint32_t id = labels_.regroup(l, group);
    grow(id);
    return id;
  }
  // The row of `l` in `out` at `place`, with the thread's name in a thread
  // group.
  KeyAverages::Key final_key(uint32_t l, KeyAverages& out, const RowPlace& place) {
    if (NumberRows::holds(l)) {
      const RowLabel& label = number_rows_.get(l);
      return out.key_at(strings_.text(label.name), label.kind,
                        row_group_text(label.group, strings_), place);
    }
    if (!named_threads_.empty()) {
      const uint32_t group = labels_.get(l).group;
      auto it = named_threads_.find(group);
      if (it != named_threads_.end()) l = labels_.regroup(l, it->second);
    }
    return labels_.key(l, out, place);
  }
  // --group-by launch-config: the interned text of a configuration, made
  // once per distinct configuration.
  uint32_t launch_config_group(const Dim3& grid, const Dim3& block, uint32_t shared_mem) {
    const LaunchConfig key{{grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_mem}};
    auto [it, fresh] = launch_configs_.try_emplace(key, Interner::kEmpty);
    if (fresh) it->second = strings_.id(launch_config_text(grid, block, shared_mem));
    return it->second;
  }
  const std::string* string_of(int kind, uint32_t id) const { return facts_.text(kind, id); }
  const std::string* kernel_name(uint32_t id) const { return facts_.kernel(id); }
  // The earliest start and latest end of a batch's records, added to
  // info_ once per batch.
  struct SeenSpan {
    uint64_t first = UINT64_MAX;
    uint64_t last = 0;
    bool any = false;
    void add(uint64_t start_ns, uint64_t end_ns) {
      first = std::min(first, start_ns);
      last = std::max(last, end_ns);
      any = true;
    }
  };
  void seen(const SeenSpan& span) {
    if (span.any) seen(span.first, span.last);
  }
  // The cursor's record; why_ is empty. Inlined into the batch's loop.
  void add_call(const ApiCursor& r, ThreadState& t, SeenSpan& span);
  void add_range(const RangeCursor& e, ThreadState& t, SeenSpan& span);
  void add_gpu(const GpuCursor& r, SeenSpan& span);
  void count_work(uint32_t label, uint64_t seq, uint32_t device, uint64_t start_ns,
                  uint64_t end_ns);
  // A GPU record in the file's counts: info's, and the CUPTI gaps'.
  void count_record(GpuKind kind, uint64_t start_ns) {
    info_.gpu.count(kind);
    ++info_.gpu.records;
    gaps_.gpu(start_ns);
  }
  // With a capture window, work no call of its id has claimed may have been
  // issued outside it: held, uncounted, until the file ends (release_held()).
  bool held_for_window(CallSlots::Gpu pairing, uint64_t correlation) {
    return windowed_ && pairing == CallSlots::Gpu::kWaiting && !slots_.has_call(correlation);
  }
  // CallTaggedWork::Sink
  void count(const HeldGpu& h, uint32_t tag) override {
    // Its call came: counted as any record is (add_gpu), late.
    if (h.held) count_record(h.kind, h.start_ns);
    if (filtering_ && !(tag & kInScope)) return;  // its call is out of range
    // By stream or device the row is the work's own (gpu_label).
    const uint32_t l = by_thread_ ? regrouped(h.label, group_of(tag)) : h.label;
    count_work(l, h.seq, h.device, h.start_ns, h.end_ns);
  }
  // `call`: its index; with --range launches are counted as the threads
  // are walked, and their rows go in call order once the file has ended.
  void count_launch(uint32_t l, uint32_t call) {
    if (launch_counts_.size() <= l) {
      launch_counts_.resize(size_t{l} + 1, 0);
      if (filtering_) launch_first_.resize(size_t{l} + 1, UINT32_MAX);
    }
    if (launch_counts_[l]++ == 0) launch_order_.push_back(l);
    if (filtering_) launch_first_[l] = std::min(launch_first_[l], call);
  }
  void without_call(const HeldGpu& h) override;
  void release_held();
  uint32_t api_label(const ApiInfo& info, uint32_t group);
  uint32_t kernel_label(const std::string* kernel, uint32_t kernel_id, uint32_t group);
  uint32_t gpu_label(const GpuCursor& r, const std::string* kernel);
  // --group-by stream|device: the group of a GPU record, "7".
  uint32_t work_group(const GpuCursor& c) {
    return value_group(options_.group_by == GroupBy::kStream ? c.stream() : c.device());
  }
  uint32_t value_group(uint64_t value) {
    auto it = work_groups_.find(value);
    if (it == work_groups_.end()) {
      it = work_groups_.emplace(value, strings_.id(std::to_string(value))).first;
      if (groups_out_ != nullptr) group_values_.emplace(it->second, value);
    }
    return it->second;
  }
  void first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group);
  void collect_first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group);
  // What two passes answer (needs_two_passes()).
  void fail_for_two_passes(const char* reason) {
    if (why_.empty()) needs_two_passes_ = true;
    fail(reason);
  }
  void walked_too_soon() { fail_for_two_passes("GPU work of a call walked before it came"); }
  bool ready(StreamEvent& e, bool must) override;
  // The row name of NVTX name `name` in `domain`, from the cache when it
  // is there.
  RangeName* range_name(uint32_t name, uint32_t domain) {
    const uint64_t key = range_key(name, domain);
    const NameSlot& slot = name_slots_[name_slot(key)];
    if (slot.name != nullptr && slot.key == key) [[likely]]
      return slot.name;
    return find_range_name(name, domain);
  }
  RangeName* find_range_name(uint32_t name, uint32_t domain);
  uint32_t range_label(RangeName& name, uint64_t seq, uint64_t op_id) {
    if (!by_numbers_ && name.label != kNoLabel) [[likely]]
      return name.label;
    return make_range_label(name, seq, op_id);
  }
  uint32_t make_range_label(RangeName& name, uint64_t seq, uint64_t op_id);
  // WalkedEvents
  bool walked(const StreamEvent& e, const WalkVisit& v, NestingWalk& walk) override;
  void add_memory(const MemoryCall& call, MemorySpace space, int64_t bytes);
  // Whether a call's memory goes to a [memory] row: not under a range (the
  // range has it), and in range with --range.
  bool memory_row(const MemoryCall& call) const {
    return !call.under_range && (!filtering_ || call.in_range);
  }
  bool close_open_pushes(uint64_t last_ns);
  void end_frame() {
    if (!why_.empty()) return;
    for (auto& [tid, state] : threads_)
      if (!state.stream->end_frame()) return fail("a thread's events out of order across frames");
    if (contexts_.size() > collect_above_) collect_contexts();
  }
  // The targets of the calls CallSlots pushed out before their work came,
  // while their contexts are alive.
  void keep_pushed() {
    for (const CallSlots::Pushed& p : slots_.pushed()) {
      late_device_.pushed(p.correlation, contexts_, p.context);
      if (tagged_) tagged_work_.pushed(p.correlation, p.tag);
      if (groups_out_ != nullptr && !(p.tag & kGrouped) && p.tag != 0)
        groups_out_->pushed(p.correlation, p.tag - 1);
      else if (by_work_ && group_of(p.tag) != 0)
        grouped_pushed_.set(p.correlation);
    }
    slots_.pushed().clear();
  }
  // Contexts of calls no longer in the slots nor on a stack are dropped
  // (walk_contexts.h): done when their number has doubled since.
  void collect_contexts() {
    slots_.mark_contexts(contexts_);
    for (auto& [tid, state] : threads_) state.stream->walk().mark_contexts(contexts_);
    const std::vector<uint32_t> renamed = contexts_.sweep();
    slots_.rename_contexts(renamed);
    for (auto& [tid, state] : threads_) state.stream->walk().rename_contexts(renamed);
    collect_above_ = std::max<size_t>(kCollectFloor, 2 * contexts_.size());
  }

  RowValues& values_of(uint32_t label) {
    return NumberRows::holds(label) ? number_rows_.values(label) : label_rows_[label];
  }
  const FirstEvent& first_of(uint32_t label) const {
    return NumberRows::holds(label) ? number_rows_.first(label) : first_[label];
  }

  const uint32_t file_;
  FileInfo& info_;
  FileFacts facts_;
  const OpsOptions& options_;
  // A range's row depends on its op's numbers, not on its name alone.
  const bool by_numbers_ =
      options_.group_by == GroupBy::kInputShape || options_.group_by == GroupBy::kSeq;
  const bool by_thread_ = options_.group_by == GroupBy::kThread;
  FirstPass* const finding_;
  FirstPass* const found_;
  // --range; not in a first pass, which needs the names it matches only.
  const bool filtering_ = !options_.ranges.empty() && finding_ == nullptr;
  CallSet* scope_out_ = nullptr;
  // A GPU row depends on its call: its thread's group, whether it is in
  // range. Calls carry that as a tag (CallSlots), kInScope the range's bit.
  const bool tagged_ = by_thread_ || filtering_;
  static constexpr uint32_t kInScope = 1u << 31;
  // The row group a tag carries: the call's thread's, or its first work's.
  static uint32_t group_of(uint32_t tag) { return tag & ~kInScope; }
  // --group-by stream|device: an API row's group is the stream or device of
  // the first GPU work its call issued. The call carries that as its tag
  // once the work has come (CallSlots keeps it for an id still waiting for
  // its call); a launch, copy or set is held back from the walk until then
  // (ready()), at most kHoldLimit events of all threads together. Work of
  // a call walked without a group makes the file go in two passes
  // (call_work_groups.h). With --range the walk adds kInScope to the group.
  const bool by_work_ =
      options_.group_by == GroupBy::kStream || options_.group_by == GroupBy::kDevice;
  static constexpr size_t kHoldLimit = size_t{1} << 19;  // about 90 bytes an event
  size_t held_events_ = 0;                               // by all threads
  PagedBits grouped_pushed_;  // calls pushed out of CallSlots with their group
  std::unordered_map<uint64_t, uint32_t> work_groups_;  // stream or device -> group
  bool needs_two_passes_ = false;
  bool file_ended_ = false;  // finish() walks what is held
  // In two passes, no call is held. The first pass tags a call with its
  // index + 1 until its first work comes, then with that work's group and
  // kGrouped (no --range there: the bit is free).
  CallWorkGroups* const groups_out_ = finding_ != nullptr && by_work_ ? &finding_->groups : nullptr;
  CallWorkGroups* const groups_in_ = found_ != nullptr && by_work_ ? &found_->groups : nullptr;
  static constexpr uint32_t kGrouped = kInScope;
  // --range naming start/end ranges, in a first pass: every push/pop range.
  std::optional<SpillSorter<PushSpan, ById>> push_spans_;
  static constexpr size_t kPushSpanBudget = (size_t{4} << 20) / sizeof(PushSpan);
  bool find_windows(const std::vector<Range>& detached);
  bool in_window(uint64_t start_ns, uint64_t end_ns) const {
    return found_ != nullptr && found_->windows.contains(start_ns, end_ns);
  }
  std::unordered_map<uint32_t, uint64_t> group_values_;  // group -> stream or device
  // Thread groups whose thread has a name: bare tid -> "tid (name)".
  std::unordered_map<uint32_t, uint32_t> named_threads_;
  const CpuTreeRules rules_;
  ThroughputStream throughput_;
  std::string why_;

  Interner strings_;
  RowLabels labels_{strings_};
  // --group-by seq: the ranges' labels with a number group (NumberRows::kBit).
  NumberRows number_rows_{strings_, file_, number_rows_in_memory(),
                          [this](std::vector<uint32_t>& ids) { open_number_labels(ids); }};
  void open_number_labels(std::vector<uint32_t>& ids) const {
    for (const auto& [tid, state] : threads_)
      for (const auto& [domain, pushes] : state.pushes)
        for (const OpenPush& p : pushes)
          if (NumberRows::holds(p.label)) ids.push_back(p.label);
  }
  std::vector<RowValues> label_rows_;  // by label: what the walk and late GPU time added
  std::vector<FirstEvent> first_;
  WalkContexts contexts_;
  static constexpr size_t kCollectFloor = size_t{1} << 16;
  size_t collect_above_ = kCollectFloor;
  StreamIds ids_;  // every correlation id below is unwrapped by it
  CallSlots slots_;
  ExternalIds external_;
  static int received(void* self, uint64_t correlation) {
    return static_cast<OpsStream*>(self)->slots_.received(correlation);
  }
  GapTally gaps_{&OpsStream::received, this};
  LateDeviceTime late_device_;
  // GPU records whose external correlation left the table (pair_lost()).
  struct LostGpu {
    HeldGpu held;    // held.correlation: its CUPTI id
    uint64_t ns;     // work time; 0 for a sync record
    uint32_t group;  // --group-by stream|device: its work_group()
  };
  struct LostOrder {
    bool operator()(const LostGpu& a, const LostGpu& b) const {
      return a.held.correlation < b.held.correlation;
    }
    static std::pair<uint64_t, uint64_t> prefix(const LostGpu& g) {
      return {g.held.correlation, g.held.seq};
    }
  };
  SpillSorter<LostGpu, LostOrder> lost_{(size_t{1} << 20) / sizeof(LostGpu)};
  void pair_lost();
  CallSlots::Gpu pair_gpu(uint64_t correlation, uint64_t ns);
  bool work_label(const GpuCursor& c, uint32_t& label);
  bool windowed_ = false;  // has_capture_window: unpaired GPU work may be outside it
  SpillSorter<HeldGpu, BySeq> held_{kHeldBudget};
  // External correlations that moved held records: by CUPTI id.
  struct Rename {
    uint64_t from;
    uint64_t to;
  };
  struct RenameOrder {
    bool operator()(const Rename& a, const Rename& b) const { return a.from < b.from; }
  };
  SpillSorter<Rename, RenameOrder> held_renames_{(size_t{1} << 20) / sizeof(Rename)};
  struct HeldByCorrelation {
    bool operator()(const HeldGpu& a, const HeldGpu& b) const {
      return a.correlation < b.correlation;
    }
  };
  void rename_held();
  uint64_t gpu_seq_ = 0;
  // --group-by thread, --range: GPU rows that wait for their call's tag.
  CallTaggedWork tagged_work_{slots_, *this, filtering_};
  uint64_t counted_seq_ = 0;  // the largest seq count_work() saw
  bool reorder_ = false;      // count_work() saw a seq below it
  std::unordered_map<uint32_t, ThreadState> threads_;
  uint32_t last_tid_ = 0;
  ThreadState* last_state_ = nullptr;
  uint32_t process_ = Interner::kEmpty;

  IdLabels api_labels_;                                // ApiId -> label, without a group
  IdLabels kernel_labels_;                             // kernel id -> label, without a group
  IdLabels kernel_gpu_labels_;                         // kernel id -> GPU row label, no group
  std::unordered_map<uint64_t, uint32_t> gpu_labels_;  // gpu_row_name_key -> label, no group
  struct LaunchConfig {
    std::array<uint32_t, 7> v;  // grid, block, shared memory
    bool operator==(const LaunchConfig&) const = default;
  };
  struct LaunchConfigHash {
    size_t operator()(const LaunchConfig& c) const {
      uint64_t h = 0;
      for (const uint32_t x : c.v) h = (h ^ x) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  std::unordered_map<LaunchConfig, uint32_t, LaunchConfigHash> launch_configs_;
  std::unordered_map<uint64_t, RangeName> range_names_;  // (domain << 32 | name)
  // range_names_' recent answers, by a hash of their key: a frame names the
  // same few ops over and over. (Interned ids carry tag bits: no vector by
  // id.)
  struct NameSlot {
    uint64_t key = 0;
    RangeName* name = nullptr;  // nullptr: empty
  };
  static constexpr int kNameSlotBits = 12;
  std::vector<NameSlot> name_slots_ = std::vector<NameSlot>(size_t{1} << kNameSlotBits);
  static uint64_t range_key(uint32_t name, uint32_t domain) {
    return static_cast<uint64_t>(domain) << 32 | name;
  }
  static size_t name_slot(uint64_t key) {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kNameSlotBits));
  }
  RangeName* cache_name(uint64_t key, RangeName* found) {
    name_slots_[name_slot(key)] = NameSlot{key, found};
    return found;
  }

  uint32_t calls_ = 0;
  uint32_t range_seq_ = 0;
  RangePairing start_end_;  // start/end ranges pair across threads: at the end
  RangeCounts counts_;      // push/pop and marks (start_end_ counts the rest)
  std::map<uint32_t, uint32_t> thread_names_;
  AllocationLedger ledger_;
  std::unordered_map<uint32_t, MemoryCall> memory_calls_;  // by call index
  bool saw_memory_ = false;

  std::vector<Totals> work_totals_;  // by label
  std::vector<uint32_t> work_order_;
  std::vector<uint64_t> launch_counts_;  // by label
  std::vector<uint32_t> launch_order_;
  std::vector<uint32_t> launch_first_;  // by label, with --range
};

}  // namespace gprof::analysis::ops_stream
