#include "tools/analysis/aggregate/ops_stream.h"

#include <algorithm>
#include <array>
#include <exception>
#include <map>
#include <memory>
#include <unordered_map>

#include "formats/read/pipelined_reader.h"
#include "formats/read/record_batches.h"
#include "tools/analysis/aggregate/call_tagged_work.h"
#include "tools/analysis/aggregate/call_work_groups.h"
#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/aggregate/late_device_time.h"
#include "tools/analysis/aggregate/memory_ledger.h"
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
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/interner.h"
#include "tools/analysis/read/range_names.h"
#include "tools/analysis/read/record_tee.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {
namespace {

// Where a label's first kept event stands in the walk order of the file:
// by thread, then as walks_before() orders a thread's events.
struct FirstEvent {
  CpuNode node;
  bool seen = false;
};

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
const std::array<ApiTraits, 256> kApiTraits = [] {
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

bool first_before(const CpuNode& a, const CpuNode& b) {
  if (a.thread != b.thread) return a.thread < b.thread;
  return walks_before(a, b);
}

class OpsStream final : public RecordVisitor,
                        public WalkRows,
                        public WalkedEvents,
                        public CallTaggedWork::Sink {
 public:
  // `finding`: filled, as the first of two passes (its rows are not the
  // file's); `found`: read, as the second.
  OpsStream(FileInfo& info, const OpsOptions& options, std::vector<std::string> step_patterns,
            FirstPass* finding = nullptr, FirstPass* found = nullptr)
      : info_(info),
        options_(options),
        finding_(finding),
        found_(found),
        rules_{filtering_, options.top_level_only},
        throughput_(std::move(step_patterns)) {
    by_key_ = &label_rows_;  // row() below
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
    info_.cupti = status;
    if (why_.empty() && !gaps_.status(status)) why_ = gaps_.why();
  }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    if (!info_.header) info_.header.emplace();
    merge_devices(*info_.header, devices);
  }
  void on_footer(const pb::Footer& footer) override { info_.footer = footer; }

  // WalkRows
  uint32_t key_of(const CpuNode& node) override {
    FirstEvent& first = first_[node.label];
    // A thread walks in order: a label seen on this thread stays first here.
    if (!first.seen || (node.thread != first.node.thread && first_before(node, first.node)))
      first = FirstEvent{node, true};
    return node.label;
  }
  Row& row(uint32_t label) override { return label_rows_[label]; }

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
  void seen(uint64_t start_ns, uint64_t end_ns) {
    if (!seen_any_ || start_ns < info_.first_ns) info_.first_ns = start_ns;
    info_.last_ns = std::max(info_.last_ns, end_ns);
    seen_any_ = true;
  }
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
  // The row of `l` in `out`, with the thread's name in a thread group.
  KeyAverages::Key final_key(uint32_t l, KeyAverages& out) {
    if (!named_threads_.empty()) {
      const uint32_t group = labels_.get(l).group;
      auto it = named_threads_.find(group);
      if (it != named_threads_.end()) l = labels_.regroup(l, it->second);
    }
    return labels_.key(l, out);
  }
  const std::string* string_of(int kind, uint32_t id) const {
    if (id == 0) return nullptr;
    auto it = strings_by_id_.find(static_cast<uint64_t>(kind) << 32 | id);
    return it == strings_by_id_.end() ? nullptr : &it->second;
  }
  const std::string* kernel_name(uint32_t id) const {
    if (id == 0) return nullptr;
    if (id < kIndexedNames) return id < kernel_by_id_.size() ? kernel_by_id_[id] : nullptr;
    auto it = kernels_.find(id);
    return it == kernels_.end() ? nullptr : &it->second;
  }
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
  // CallTaggedWork::Sink
  void count(const HeldGpu& h, uint32_t tag) override {
    if (h.held) {  // its call came: counted as any record is (add_gpu), late
      info_.gpu.count(h.kind);
      ++info_.gpu.records;
      gaps_.gpu(h.start_ns);
    }
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

  FileInfo& info_;
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
  std::vector<Row> label_rows_;  // by label: what the walk and late GPU time added
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

  std::unordered_map<uint32_t, std::string> kernels_;
  static constexpr uint32_t kIndexedNames = 1u << 20;
  std::vector<const std::string*> kernel_by_id_;             // kernels_' values, by small id
  std::unordered_map<uint64_t, std::string> strings_by_id_;  // other kinds, (kind << 32 | id)
  IdLabels api_labels_;                                      // ApiId -> label, without a group
  IdLabels kernel_labels_;                                   // kernel id -> label, without a group
  IdLabels kernel_gpu_labels_;                               // kernel id -> GPU row label, no group
  std::unordered_map<uint64_t, uint32_t> gpu_labels_;        // gpu_row_name_key -> label, no group
  std::unordered_map<uint64_t, RangeName> range_names_;      // (domain << 32 | name)
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
  bool seen_any_ = false;
};

void OpsStream::on_header(const pb::FileHeader& header) {
  info_.header = header;
  const bool windowed = has_capture_window(header);
  if (windowed != windowed_ && gpu_seq_ != 0) fail("a header after GPU records");
  windowed_ = windowed;
  process_ =
      strings_.id(options_.group_by == GroupBy::kRank ? rank_text(header.pid(), header.rank())
                                                      : process_text(header.pid(), header.rank()));
}

void OpsStream::on_string(const pb::StringEntry& entry) {
  if (entry.kind() == pb::StringEntry::KERNEL) {
    std::string& kernel = kernels_[entry.id()];  // unordered_map: stays where it is
    kernel = entry.value();
    if (entry.id() < kIndexedNames) {
      if (entry.id() >= kernel_by_id_.size()) kernel_by_id_.resize(size_t{entry.id()} + 1);
      kernel_by_id_[entry.id()] = &kernel;
    }
  } else
    strings_by_id_[static_cast<uint64_t>(entry.kind()) << 32 | entry.id()] = entry.value();
}

uint32_t OpsStream::api_label(const ApiInfo& info, uint32_t group) {
  const RowLabel l{RowKind::kApi, Interner::kEmpty, group};
  if (group != Interner::kEmpty) {
    RowLabel named = l;
    named.name = strings_.id(info.display);
    return label(named);
  }
  return api_labels_.get(static_cast<uint16_t>(info.id), [&] {
    RowLabel named = l;
    named.name = strings_.id(info.display);
    return label(named);
  });
}

uint32_t OpsStream::kernel_label(const std::string* kernel, uint32_t kernel_id, uint32_t group) {
  const auto make = [&] {
    const uint32_t name = strings_.id(kernel ? demangle(*kernel) : std::string(kUnknownKernel));
    return label(RowLabel{RowKind::kGpu, name, group, GpuKind::kKernel});
  };
  if (group != Interner::kEmpty) return make();
  return kernel_labels_.get(kernel ? kernel_id : 0, make);
}

uint32_t OpsStream::gpu_label(const GpuCursor& c, const std::string* kernel) {
  const GpuKind kind = c.kind();
  uint32_t group = Interner::kEmpty;
  if (options_.group_by == GroupBy::kLaunchConfig && kind == GpuKind::kKernel)
    group = strings_.id(launch_config_text(c.grid(), c.block(), c.shared_mem()));
  else if (by_file())
    group = process_;
  const auto make = [&] {
    return label(
        RowLabel{RowKind::kGpu, strings_.id(gpu_row_name(c.record(), kernel)), group, kind});
  };
  if (group != Interner::kEmpty) return make();
  uint32_t l;
  if (kind == GpuKind::kKernel) {
    l = kernel_gpu_labels_.get(kernel ? c.kernel() : 0, make);
  } else {
    const uint64_t name_key = gpu_row_name_key(c.record(), kernel != nullptr);
    auto it = gpu_labels_.find(name_key);
    if (it == gpu_labels_.end()) it = gpu_labels_.emplace(name_key, make()).first;
    l = it->second;
  }
  // The named row's label, then its stream's or device's: no name made
  // per record.
  return by_work_ ? regrouped(l, work_group(c)) : l;
}

void OpsStream::on_api_batch(const ApiBatch& batch) {
  if (!why_.empty() || batch.size == 0) return;
  ThreadState& t = state(batch.tid);
  SeenSpan span;
  for (ApiCursor c(batch); c.next() && why_.empty();) add_call(c, t, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_call(const ApiCursor& c, ThreadState& t,
                                                       SeenSpan& span) {
  const uint32_t raw = static_cast<uint32_t>(c.api());
  if (raw >= kApiTraits.size()) return;
  const ApiTraits& traits = kApiTraits[raw];
  const ApiInfo* info = traits.info;
  if (info == nullptr) return;
  const bool launch = info->fields & kFieldLaunch;
  const uint32_t kernel_id = launch ? c.kernel() : 0;
  const std::string* kernel = launch ? kernel_name(kernel_id) : nullptr;
  const uint64_t start_ns = c.start_ns();
  const uint64_t end_ns = c.end_ns();
  span.add(start_ns, end_ns);
  const uint32_t index = calls_++;
  uint32_t group = Interner::kEmpty;
  if (options_.group_by == GroupBy::kLaunchConfig && launch)
    group = strings_.id(launch_config_text(c.grid(), c.block(), c.shared_mem()));
  else if (by_file())
    group = process_;
  uint32_t api = regrouped(api_label(*info, group), t.group);
  uint32_t call_tag = t.group;
  if (groups_in_ != nullptr) {
    if (const std::optional<uint64_t> value = groups_in_->group(index)) {
      call_tag = value_group(*value);
      api = regrouped(api, call_tag);
    }
  } else if (groups_out_ != nullptr) {
    if (index >= kGrouped - 1) return fail("more than 2^31 calls in two passes");
    call_tag = index + 1;
  }
  const bool memory = traits.memory && c.result() == 0;
  if (memory) ledger_.add(c.record(), index);
  uint32_t launch_label = UINT32_MAX;
  if (launch) {
    launch_label = regrouped(kernel_label(kernel, kernel_id, group), t.group);
    if (!filtering_) count_launch(launch_label, index);  // else once walked
  }
  const bool sync = info->category == ApiCategory::kSync;
  if (sync && !filtering_) throughput_.sync_call(start_ns, end_ns);
  // Counted once walked, with the node's end, which is never before its
  // start; throughput.cc takes the call's own.
  if (sync && filtering_ && end_ns < start_ns)
    return fail("a synchronize call that ends before it starts");
  const uint64_t correlation = ids_.call(c.correlation());
  const CallSlots::Expect expect =
      info->category == ApiCategory::kLaunch
          ? (launch ? CallSlots::Expect::kOne : CallSlots::Expect::kMany)
      : info->category == ApiCategory::kCopy || info->category == ApiCategory::kSet
          ? CallSlots::Expect::kOne
          : CallSlots::Expect::kNothing;
  if (correlation != 0 && !slots_.add_call(correlation, expect, call_tag)) {
    fail("a correlation id used twice, or by a call that came long after its GPU work");
    return;
  }
  if (groups_out_ != nullptr && correlation != 0) {
    // Work that waited for its call set the group first.
    const uint32_t tag = slots_.tag(correlation);
    if (tag & kGrouped) groups_out_->found(index, group_values_.at(group_of(tag)));
  }
  if (!slots_.pushed().empty()) keep_pushed();
  if (tagged_ && !filtering_) tagged_work_.call_tagged(correlation, t.group);
  if (info->category == ApiCategory::kLaunch) gaps_.launch(start_ns, correlation);
  t.stream->add_made(false, start_ns, [&](StreamEvent& e) {
    e.node.start_ns = start_ns;
    e.node.end_ns = std::max(end_ns, start_ns);
    e.node.thread = c.tid();
    e.node.id = index;
    e.node.label = api;
    if (in_window(start_ns, end_ns)) e.node.flags = kNodeInWindow;
    e.correlation = correlation;
    e.memory = memory;
    e.launch_label = launch_label;
    e.sync = sync;
    e.issues_work = expect != CallSlots::Expect::kNothing;
  });
}

OpsStream::RangeName* OpsStream::find_range_name(uint32_t name, uint32_t domain) {
  const uint64_t key = range_key(name, domain);
  auto it = range_names_.find(key);
  if (it != range_names_.end()) return cache_name(key, &it->second);
  const std::string* message = string_of(pb::StringEntry::NVTX, name);
  const std::string* domain_name = string_of(pb::StringEntry::DOMAIN, domain);
  // The in-memory path names ranges once the file has ended; a name that
  // comes after its range is left to it.
  if ((name != 0 && message == nullptr) || (domain != 0 && domain_name == nullptr)) {
    fail("an NVTX name written after its range");
    return nullptr;
  }
  RangeName n;
  n.row = range_row_name(message, domain_name);
  n.input_shapes = message ? std::string(torch_input_shapes(*message)) : std::string();
  n.id = strings_.id(n.row);
  n.step_pattern = throughput_.step_pattern(n.row);
  n.scope_root = glob_match_any(options_.ranges, n.row);
  return cache_name(key, &range_names_.emplace(key, std::move(n)).first->second);
}

uint32_t OpsStream::make_range_label(RangeName& name, uint64_t seq, uint64_t op_id) {
  uint32_t group = by_file() ? process_ : Interner::kEmpty;
  // torch keys an op by name and shapes; an op called without tensors has
  // "[]" there. Other ranges are no ops and have no shapes.
  const bool op = seq != 0 || op_id != 0 || !name.input_shapes.empty();
  if (options_.group_by == GroupBy::kInputShape && op)
    group = strings_.id(name.input_shapes.empty() ? "[]" : name.input_shapes);
  if (options_.group_by == GroupBy::kSeq && seq != 0) group = strings_.id(std::to_string(seq - 1));
  const uint32_t l = label(RowLabel{RowKind::kRange, name.id, group});
  if (!by_numbers_) name.label = l;
  return l;
}

void OpsStream::on_range_batch(const RangeBatch& batch) {
  if (!why_.empty() || batch.size == 0) return;
  ThreadState& t = state(batch.tid);
  SeenSpan span;
  for (RangeCursor c(batch); c.next() && why_.empty();) add_range(c, t, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_range(const RangeCursor& c, ThreadState& t,
                                                        SeenSpan& span) {
  const RangeOp op = c.op();
  if (op == RangeOp::kNameThread || op == RangeOp::kNameCategory) {
    if (op == RangeOp::kNameThread) thread_names_[static_cast<uint32_t>(c.range_id())] = c.name();
    return;  // categories name nothing the tables show
  }
  const uint64_t time_ns = c.time_ns();
  span.add(time_ns, time_ns);
  bool ok = true;
  switch (op) {
    case RangeOp::kPush: {
      const uint32_t domain = c.domain();
      RangeName* name = range_name(c.name(), domain);
      if (name == nullptr) return;
      const uint32_t id = range_seq_++;
      const uint32_t label = regrouped(range_label(*name, c.seq(), c.op_id()), t.group);
      t.pushes_of(domain).push_back(OpenPush{id, time_ns, label, name->step_pattern});
      t.stream->add_made(true, time_ns, [&](StreamEvent& s) {
        s.node.start_ns = time_ns;
        s.node.end_ns = kOpenEnd;
        s.node.thread = c.tid();
        s.node.id = id;
        s.node.flags = static_cast<uint8_t>(
            kNodeRange | (name->scope_root ? kNodeScopeRoot : 0) |
            (found_ != nullptr && found_->pushes_in_window.contains(id) ? kNodeInWindow : 0));
        s.node.label = label;
      });
      break;
    }
    case RangeOp::kPop: {
      std::vector<OpenPush>& stack = t.pushes_of(c.domain());
      if (stack.empty()) {
        ++counts_.unbalanced_pops;
        t.stream->advance(time_ns);
        break;
      }
      const OpenPush push = stack.back();
      stack.pop_back();
      const uint64_t end = std::max(time_ns, push.start_ns);
      ++counts_.push_pop;
      throughput_.range(push.step_pattern, push.start_ns, end);
      if (push_spans_) push_spans_->add(PushSpan{push.id, push.start_ns, end});
      ok = t.stream->set_end(push.id, end);
      t.stream->advance(time_ns);
      break;
    }
    case RangeOp::kStart:
      if (filtering_) {
        // A start/end range --range names is a window in time (cpu_tree.h),
        // over events of every thread walked before its end is read.
        const RangeName* name = range_name(c.name(), c.domain());
        if (name == nullptr) return;
        if (name->scope_root && found_ == nullptr)
          return fail_for_two_passes("--range naming a start/end range");
      }
      ++range_seq_;  // the in-memory path numbers pushes, starts and marks together
      start_end_.add(c.event());
      t.stream->advance(time_ns);
      break;
    case RangeOp::kEnd:
      start_end_.add(c.event());
      t.stream->advance(time_ns);
      break;
    case RangeOp::kMark:
      ++range_seq_;
      ++counts_.marks;
      t.stream->advance(time_ns);
      break;
    case RangeOp::kNameThread:
    case RangeOp::kNameCategory:
      break;  // above
  }
  if (!ok) fail("ranges of a thread that cross");
}

void OpsStream::on_gpu_batch(const GpuBatch& batch) {
  SeenSpan span;
  for (GpuCursor c(batch); c.next() && why_.empty();) add_gpu(c, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_gpu(const GpuCursor& c, SeenSpan& span) {
  const uint64_t start_ns = c.start_ns();
  const uint64_t end_ns = c.end_ns();
  // The shim drops records CUPTI could not time (profile.cc does the same).
  if (start_ns == 0 && end_ns == 0) {
    ++info_.gpu.no_timestamp;
    return;
  }
  span.add(start_ns, end_ns);
  const GpuKind kind = c.kind();
  const bool work = kind != GpuKind::kSync;
  const uint64_t duration = end_ns > start_ns ? end_ns - start_ns : 0;
  const uint64_t seq = gpu_seq_++;
  uint64_t correlation = ids_.other(c.correlation());
  if (external_.any()) {
    bool lost = false;
    correlation = external_.translate(correlation, lost);
    if (lost) {
      fail("a GPU record whose external correlation left the pairing window");
      return;
    }
  }
  uint32_t context = WalkContexts::kNone;
  const CallSlots::Gpu pairing = slots_.gpu(correlation, work ? duration : 0, context);
  // No call of its id yet: with a capture window, it may be work issued
  // outside it, which is not counted (release_held()).
  const bool hold =
      windowed_ && pairing == CallSlots::Gpu::kWaiting && !slots_.has_call(correlation);
  if (!hold) {
    info_.gpu.count(kind);
    ++info_.gpu.records;
    gaps_.gpu(start_ns);
    if (work) gaps_.worked(correlation);
  }
  switch (pairing) {
    case CallSlots::Gpu::kOpened:
      if (work)
        add_device_time(contexts_, context, duration,
                        [this](uint32_t l) -> Row& { return label_rows_[l]; });
      break;
    case CallSlots::Gpu::kLate:
      if (work) late_device_.late(correlation, duration);
      break;
    case CallSlots::Gpu::kWaiting:
      break;
  }
  if (!work) {
    if (hold) held_.add(HeldGpu{seq, correlation, start_ns, end_ns, 0, c.device(), kind});
    return;
  }
  if (by_work_ && groups_in_ == nullptr) {
    if (groups_out_ != nullptr)
      collect_first_work(correlation, pairing, work_group(c));
    else
      first_work(correlation, pairing, work_group(c));
    if (!why_.empty()) return;
  }
  const std::string* kernel = nullptr;
  if (kind == GpuKind::kKernel) {
    const uint32_t kernel_id = c.kernel();
    kernel = kernel_name(kernel_id);
    if (kernel == nullptr && kernel_id != 0) {
      fail("a kernel name written after its kernel");
      return;
    }
  }
  const uint32_t l = gpu_label(c, kernel);
  if (tagged_) {
    // The row is the call's thread's, and counts when the call is in range.
    tagged_work_.add(HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind, hold},
                     pairing);
    return;
  }
  if (hold) {
    held_.add(HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind, true});
    return;
  }
  count_work(l, seq, c.device(), start_ns, end_ns);
}

// --group-by stream|device: work of call `correlation`, as gpu() paired it.
void OpsStream::first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group) {
  if (correlation == 0) return;
  switch (pairing) {
    case CallSlots::Gpu::kOpened:
      if (group_of(slots_.tag(correlation)) == 0) walked_too_soon();
      return;
    case CallSlots::Gpu::kLate:
      // Only calls that may still get work are handed on when pushed out
      // (CallSlots::pushed): any other's is work after its walk too.
      if (!grouped_pushed_.test(correlation)) walked_too_soon();
      return;
    case CallSlots::Gpu::kWaiting:
      break;
  }
  // The call, or its id waiting for it (CallSlots::gpu() made the entry).
  if (slots_.tag(correlation) == 0) slots_.set_tag(correlation, group);
}

// The first of two passes, once the file has ended: the windows of the
// start/end ranges --range names, and the push/pop ranges inside one.
bool OpsStream::find_windows(const std::vector<Range>& detached) {
  for (const Range& r : detached) {
    const RangeName* name = range_name(r.name, r.domain);
    if (name == nullptr) return false;
    if (name->scope_root) finding_->windows.add(r.start_ns, r.end_ns);
  }
  if (finding_->windows.empty()) return true;
  finding_->windows.merge();
  auto spans = push_spans_->sorted();
  for (PushSpan s; spans.next(s);)
    if (finding_->windows.contains(s.start_ns, s.end_ns))
      finding_->pushes_in_window.add(static_cast<uint32_t>(s.id));
  return true;
}

// The first of two passes: work of call `correlation`.
void OpsStream::collect_first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group) {
  if (correlation == 0) return;
  if (pairing == CallSlots::Gpu::kLate) {
    // Its first late work gives a pushed call its group; the rest find it
    // grouped.
    if (groups_out_->late(correlation, group_values_.at(group)))
      grouped_pushed_.set(correlation);
    else if (!grouped_pushed_.test(correlation))
      fail("GPU work of a call pushed out without its index");
    return;
  }
  const uint32_t tag = slots_.tag(correlation);
  if (tag & kGrouped) return;                                          // not its first work
  if (tag != 0) groups_out_->found(tag - 1, group_values_.at(group));  // the call's index + 1
  slots_.set_tag(correlation, group | kGrouped);  // or the id's, waiting for its call
}

// --group-by stream|device: a call is walked in its first work's row.
bool OpsStream::ready(StreamEvent& e, bool must) {
  if ((e.node.flags & kNodeRange) || e.correlation == 0) return true;
  const uint32_t group = group_of(slots_.tag(e.correlation));
  if (group != 0) {
    e.node.label = regrouped(e.node.label, group);
    return true;
  }
  if (!e.issues_work) return true;
  // Past the hold while the file is read: its work is most likely still to
  // come (a GPU that far behind), and the file goes in two passes now
  // rather than once that work has come.
  if (must && !file_ended_) walked_too_soon();
  return must;  // walked without a group: its work must not come
}

// Work no call will claim: a GPU row without a thread, or, held by the
// capture window, left to release_held().
void OpsStream::without_call(const HeldGpu& h) {
  if (h.held)
    held_.add(h);
  else if (!filtering_)  // work without a call is in no range
    count(h, Interner::kEmpty);
}

// A mapping that came after GPU records of its CUPTI id: they move to the
// call that pushed the id (external_ids.h).
void OpsStream::on_external_correlation(uint64_t cupti_id, uint64_t external_id) {
  ++info_.gpu.external_correlations;
  if (!why_.empty()) return;
  const uint64_t correlation = ids_.call(cupti_id);
  switch (external_.add(correlation, external_id)) {
    case ExternalIds::Added::kSmallIds:
      return fail("external ids pushed from 1 (a file of an older gprof)");
    case ExternalIds::Added::kConflict:
      return fail("two external ids for one correlation id");
    case ExternalIds::Added::kAgain:
      return;
    case ExternalIds::Added::kNew:
      break;
  }
  CallSlots::Gpu outcome{};
  uint64_t records = 0, ns = 0;
  uint32_t context = WalkContexts::kNone;
  uint32_t tag = 0;
  if (!slots_.rename(correlation, external_id, outcome, records, ns, context, tag))
    return fail("a GPU record given up before its external correlation came");
  if (records == 0) return;
  // Records held by the capture window under the CUPTI id are its call's
  // now (release_held()).
  if (windowed_) held_renames_.add(Rename{correlation, external_id});
  if (tagged_) tagged_work_.renamed(correlation, external_id, outcome);
  if (by_work_ && groups_in_ == nullptr && group_of(tag) != 0) {  // work waited under the CUPTI id
    if (groups_out_ != nullptr)
      collect_first_work(external_id, outcome, group_of(tag));
    else
      first_work(external_id, outcome, tag);
    if (!why_.empty()) return;
  }
  // A launch has no sync record (one carries its sync call's id): what
  // waited under a launch's id is work.
  gaps_.worked(external_id);
  if (ns == 0) return;
  if (outcome == CallSlots::Gpu::kOpened)
    add_device_time(contexts_, context, ns, [this](uint32_t l) -> Row& { return label_rows_[l]; });
  else if (outcome == CallSlots::Gpu::kLate)
    late_device_.late(external_id, ns);
}

void OpsStream::count_work(uint32_t label, uint64_t seq, uint32_t device, uint64_t start_ns,
                           uint64_t end_ns) {
  if (seq < counted_seq_) reorder_ = true;
  counted_seq_ = std::max(counted_seq_, seq);
  if (work_totals_.size() <= label) work_totals_.resize(size_t{label} + 1);
  Totals& totals = work_totals_[label];
  if (totals.count++ == 0) work_order_.push_back(label);
  totals.first_seq = std::min(totals.first_seq, seq);
  totals.duration_ns += end_ns > start_ns ? end_ns - start_ns : 0;
  throughput_.work(device, start_ns, end_ns);
}

// Once the file has ended: the held records whose call came, or that
// started in a window (CaptureWindows), count as the others did; the rest
// were issued outside the window and are left out.
void OpsStream::release_held() {
  if (!windowed_) return;
  rename_held();
  const CaptureWindows window(true, info_.cupti);
  const bool gaps = info_.cupti && info_.cupti->gaps_size() != 0;
  auto held = held_.sorted();
  for (HeldGpu h; held.next(h);) {
    if (slots_.never_paired(h.correlation) && window.outside(h.start_ns)) {
      ++info_.gpu.outside_window;
      continue;
    }
    info_.gpu.count(h.kind);
    ++info_.gpu.records;
    // The gaps are closed: a record counts before, during or after each.
    if (gaps) gaps_.gpu(h.start_ns);
    // With --range, only work no call claimed is held here: in no range.
    if (h.kind == GpuKind::kSync || filtering_) continue;
    count_work(h.label, h.seq, h.device, h.start_ns, h.end_ns);
  }
  held_ = SpillSorter<HeldGpu, BySeq>(1);
}

// Held records whose CUPTI id an external correlation renamed after they
// were held: under their call's id (which decides whether they paired),
// through a sort by id and a join with the renames, then in seq order again.
void OpsStream::rename_held() {
  if (held_renames_.size() == 0) return;
  SpillSorter<HeldGpu, HeldByCorrelation> by_id(kHeldBudget);
  {
    auto held = held_.sorted();
    for (HeldGpu h; held.next(h);) by_id.add(h);
  }
  SpillSorter<HeldGpu, BySeq> renamed(kHeldBudget);
  auto renames = held_renames_.sorted();
  Rename r{};
  bool has_r = renames.next(r);
  auto records = by_id.sorted();
  for (HeldGpu h; records.next(h);) {
    while (has_r && r.from < h.correlation) has_r = renames.next(r);
    if (has_r && r.from == h.correlation) h.correlation = r.to;
    renamed.add(h);
  }
  held_ = std::move(renamed);
}

bool OpsStream::walked(const StreamEvent& e, const WalkVisit& v, NestingWalk& walk) {
  if (e.node.flags & kNodeRange) return true;
  const bool in_range = (v.result & kResultInRange) != 0;
  if (e.correlation != 0) {
    uint64_t gpu_ns = 0;
    if (!slots_.opened(e.correlation, v.context, gpu_ns)) return false;
    if (filtering_) {
      // The GPU rows of its work count now that the walk said; by stream or
      // device, the call keeps its first work's group.
      const uint32_t group = by_thread_ ? labels_.get(e.node.label).group
                             : by_work_ ? group_of(slots_.tag(e.correlation))
                                        : Interner::kEmpty;
      const uint32_t tag = group | (in_range ? kInScope : 0);
      slots_.set_tag(e.correlation, tag);
      tagged_work_.call_tagged(e.correlation, tag);
    }
    if (!slots_.pushed().empty()) keep_pushed();
    if (gpu_ns != 0)
      add_device_time(contexts_, v.context, gpu_ns,
                      [this](uint32_t l) -> Row& { return label_rows_[l]; });
  }
  if (filtering_ && in_range) {
    if (scope_out_ != nullptr) scope_out_->add(e.node.id);
    if (e.sync) throughput_.sync_call(e.node.start_ns, e.node.end_ns);
    if (e.launch_label != UINT32_MAX) count_launch(e.launch_label, e.node.id);
  }
  if (e.memory)
    memory_calls_[e.node.id] = MemoryCall{walk.memory_targets(), e.node.label,
                                          (v.result & kResultUnderRange) != 0, in_range};
  return true;
}

void OpsStream::add_memory(const MemoryCall& call, MemorySpace space, int64_t bytes) {
  const bool device = space == MemorySpace::kDevice;
  for (const WalkTarget& t : call.targets) {
    Row& row = label_rows_[t.key];
    const bool self = t.field == WalkField::kSelfMemory;
    if (device)
      (self ? row.self_device_mem : row.device_mem) += bytes;
    else
      (self ? row.self_cpu_mem : row.cpu_mem) += bytes;
  }
}

// Ranges still open when the process ended close at its last time, the
// innermost first, so that each finds its children closed.
bool OpsStream::close_open_pushes(uint64_t last_ns) {
  for (auto& [tid, state] : threads_) {
    std::vector<OpenPush> open;
    for (auto& [domain, stack] : state.pushes) open.insert(open.end(), stack.begin(), stack.end());
    state.pushes.clear();
    std::sort(open.begin(), open.end(), [](const OpenPush& a, const OpenPush& b) {
      return a.start_ns != b.start_ns ? a.start_ns > b.start_ns : a.id > b.id;
    });
    for (const OpenPush& p : open) {
      const uint64_t end = std::max(last_ns, p.start_ns);
      ++counts_.push_pop;
      ++counts_.open_at_exit;
      throughput_.range(p.step_pattern, p.start_ns, end);
      if (push_spans_) push_spans_->add(PushSpan{p.id, p.start_ns, end});
      if (!state.stream->set_end(p.id, end)) return false;
    }
  }
  return true;
}

bool OpsStream::finish(KeyAverages& out, std::optional<FileThroughput>* throughput, uint32_t file) {
  file_ended_ = true;
  if (why_.empty() && ids_.ambiguous())
    fail("correlation ids too far apart to unwrap as they come");
  // Work held by a capture window counts in the gaps once they are closed
  // (release_held()).
  const bool gaps = info_.cupti && info_.cupti->gaps_size() != 0;
  if (why_.empty() && gaps && !gaps_.finish(*info_.cupti)) why_ = gaps_.why();
  if (!why_.empty()) return false;

  uint64_t last = info_.last_ns;
  if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
  if (!close_open_pushes(last)) {
    fail("ranges open at exit crossing");
    return false;
  }
  // Start/end ranges: rows at their place in the walk order, no nesting.
  const std::vector<Range> detached = start_end_.finish(last, info_.ranges);
  if (push_spans_ && !find_windows(detached)) return false;
  info_.ranges += counts_;
  NestingWalk aside(rules_, *this);
  uint32_t detached_id = 0;
  for (const Range& r : detached) {
    RangeName* name = range_name(r.name, r.domain);
    if (name == nullptr) return false;
    CpuNode n;
    n.start_ns = r.start_ns;
    n.end_ns = r.end_ns;
    n.thread = r.tid;
    n.id = detached_id++;
    n.flags =
        static_cast<uint8_t>(kNodeRange | kNodeDetached | (name->scope_root ? kNodeScopeRoot : 0) |
                             (in_window(r.start_ns, r.end_ns) ? kNodeInWindow : 0));
    n.label = range_label(*name, r.seq, r.op_id);
    if (by_thread_) n.label = regrouped(n.label, thread_group(r.tid));
    aside.visit(n);
    throughput_.range(name->step_pattern, r.start_ns, r.end_ns);
  }
  for (auto& [tid, state] : threads_) {
    if (!state.stream->finish()) {
      fail("a thread's events out of order");
      return false;
    }
  }
  if (!why_.empty()) return false;  // walked() may have failed
  // Every call has come and been walked: what still waits has no call.
  tagged_work_.no_more_calls();
  release_held();
  if (gaps) info_.gaps = gaps_.counts();
  for (const auto& [tid, name] : thread_names_) {
    const std::string* text = string_of(pb::StringEntry::NVTX, name);
    if (text == nullptr) text = string_of(pb::StringEntry::THREAD, name);
    if (text != nullptr) info_.thread_names[tid] = *text;
  }

  // Memory: deltas in time order, into the rows the walk named and [memory].
  const std::vector<MemoryDelta> deltas = ledger_.resolve();
  std::vector<uint32_t> memory_labels;
  const uint32_t memory_name = strings_.id(kMemoryRow);
  for (const MemoryDelta& d : deltas) {
    auto it = memory_calls_.find(d.call);
    if (it == memory_calls_.end()) continue;  // not walked: cannot happen
    add_memory(it->second, d.space, d.bytes);
    if (!memory_row(it->second)) continue;
    const uint32_t group =
        by_file() || by_thread_ ? labels_.get(it->second.label).group : Interner::kEmpty;
    memory_labels.push_back(label(RowLabel{RowKind::kMemory, memory_name, group}));
  }
  saw_memory_ = !deltas.empty();

  const bool joined = late_device_.join([this](uint32_t key, WalkField field, uint64_t ns) {
    add_device_field(label_rows_[key], field, ns);
  });
  if (!joined || !tagged_work_.join_late()) {
    fail("a GPU record whose call left the pairing window");
    return false;
  }
  // GPU rows in the order of their first record counted.
  if (reorder_)
    std::sort(work_order_.begin(), work_order_.end(), [&](uint32_t a, uint32_t b) {
      return work_totals_[a].first_seq < work_totals_[b].first_seq;
    });
  if (by_thread_)
    for (const auto& [tid, name] : info_.thread_names)
      named_threads_.emplace(thread_group(tid), strings_.id(thread_text(tid, &name)));

  // Rows in the order the in-memory path creates them: CPU rows by their
  // first event in walk order, GPU rows by their first record, launches of
  // a CPU-only file, [memory].
  std::vector<uint32_t> cpu;
  for (uint32_t l = 0; l < first_.size(); ++l)
    if (first_[l].seen) cpu.push_back(l);
  std::sort(cpu.begin(), cpu.end(),
            [&](uint32_t a, uint32_t b) { return first_before(first_[a].node, first_[b].node); });
  for (uint32_t l : cpu) add_row_values(out.row(final_key(l, out)), label_rows_[l]);
  for (uint32_t l : work_order_) {
    const Totals& t = work_totals_[l];
    out.add_gpu_activity(final_key(l, out), t.duration_ns, t.count);
  }
  if (filtering_)
    std::sort(launch_order_.begin(), launch_order_.end(),
              [&](uint32_t a, uint32_t b) { return launch_first_[a] < launch_first_[b]; });
  if (info_.gpu.records == 0)
    for (uint32_t l : launch_order_) out.add_gpu_activity(final_key(l, out), 0, launch_counts_[l]);
  size_t next_memory = 0;
  for (const MemoryDelta& d : deltas) {
    auto it = memory_calls_.find(d.call);
    if (it == memory_calls_.end() || !memory_row(it->second)) continue;
    add_memory_event(out.row(final_key(memory_labels[next_memory++], out)),
                     d.space == MemorySpace::kDevice, d.bytes);
  }

  info_.gpu.unpaired = slots_.unpaired() - info_.gpu.outside_window;
  if (throughput != nullptr)
    *throughput = throughput_.finish(file, info_.header ? info_.header->pid() : 0, info_.first_ns,
                                     info_.last_ns);
  return true;
}

}  // namespace

namespace {

// One read of the file into `out` and `local`; false (`why` says) when
// the stream cannot take it. `first` and `second`: as OpsStream's.
bool stream_once(uint32_t index, const std::string& path, const OpsOptions& options,
                 const std::optional<std::vector<std::string>>& steps, unsigned decoders,
                 CallSet* scope, FirstPass* first, FirstPass* second, StreamedFile& out,
                 KeyAverages& local, std::string& why, bool& needs_two_passes,
                 RecordVisitor* beside) {
  OpsStream stream(out.info, options, steps.value_or(std::vector<std::string>{}), first, second);
  stream.mark_scope(scope);
  std::optional<RecordTee> tee;
  if (beside != nullptr) tee.emplace(stream, *beside);
  RecordVisitor& visitor = tee ? static_cast<RecordVisitor&>(*tee) : stream;
  out.info.status =
      decoders > 0 ? read_file_pipelined(path, visitor, decoders) : read_file(path, visitor);
  if (!stream.why().empty() || !stream.finish(local, steps ? &out.throughput : nullptr, index)) {
    why = stream.why();
    needs_two_passes = stream.needs_two_passes();
    retract_read_progress(out.info.status);
    return false;
  }
  out.saw_memory = stream.saw_memory();
  return true;
}

// A file one pass cannot take exactly (--group-by stream|device on a GPU
// too far behind for the hold, --range naming a start/end range): what
// the second pass needs from a first (FirstPass), then the rows.
bool stream_twice(uint32_t index, const std::string& path, const OpsOptions& options,
                  const std::optional<std::vector<std::string>>& steps, unsigned decoders,
                  CallSet* scope, StreamedFile& out, KeyAverages& local, std::string& why,
                  RecordVisitor* beside) {
  FirstPass found;
  bool again = false;
  {
    StreamedFile scratch_file;
    scratch_file.info.path = path;
    KeyAverages scratch;
    if (!stream_once(index, path, options, std::nullopt, decoders, nullptr, &found, nullptr,
                     scratch_file, scratch, why, again, nullptr))
      return false;
    retract_read_progress(scratch_file.info.status);  // the file counts once, in the second
  }
  found.groups.finish();
  return stream_once(index, path, options, steps, decoders, scope, nullptr, &found, out, local, why,
                     again, beside);
}

}  // namespace

std::optional<StreamedFile> stream_ops_file(uint32_t index, const std::string& path,
                                            const OpsOptions& options,
                                            const std::optional<std::vector<std::string>>& steps,
                                            KeyAverages& rows, std::string& why, unsigned decoders,
                                            CallSet* scope, RecordVisitor* beside) {
  StreamedFile out;
  out.info.path = path;
  KeyAverages local;
  try {
    const bool by_work =
        options.group_by == GroupBy::kStream || options.group_by == GroupBy::kDevice;
    bool twice = by_work && two_passes_asked();
    if (twice || !stream_once(index, path, options, steps, decoders, scope, nullptr, nullptr, out,
                              local, why, twice, beside)) {
      if (!twice) return std::nullopt;  // read again in memory
      out = StreamedFile{};
      out.info.path = path;
      local = KeyAverages{};
      if (scope != nullptr) *scope = CallSet{};
      why.clear();
      if (!stream_twice(index, path, options, steps, decoders, scope, out, local, why, beside))
        return std::nullopt;
    }
  } catch (const std::exception& e) {
    // The throughput lines spill to temporary files (throughput_stream.h);
    // the in-memory path needs none.
    why = e.what();
    return std::nullopt;
  }
  rows.merge(std::move(local));
  return out;
}

}  // namespace gprof::analysis
