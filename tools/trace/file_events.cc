#include "tools/trace/file_events.h"

#include <algorithm>
#include <tuple>

#include "formats/correlation_ids.h"
#include "tools/analysis/read/call_pairing.h"
#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/range_names.h"
#include "tools/trace/busy_counter.h"
#include "tools/trace/time_origin.h"

namespace gprof::trace {

// The parts of a call its GPU work is paired and written with.
struct CallKey {
  uint64_t correlation;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t track;
  uint32_t index;
};

namespace {

// What the pairing sorts (call_pairing.h).
struct GpuIn {
  GpuRecord record;
  uint64_t seq;          // file order
  uint64_t correlation;  // the id it is joined on (correlation_join.h)
  uint64_t start_ns() const { return record.start_ns; }
  // The trace writes the record's id unwrapped too.
  void unwrap(uint64_t id) { correlation = record.correlation = id; }
};

struct Work {
  GpuRecord record;
  uint64_t seq;
  CallKey call;
};

// An allocation or free call that succeeded.
struct Memory {
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t address;
  uint64_t bytes;
  analysis::MemoryEffect effect;
};

struct Busy {
  uint32_t device;
  int64_t start;
  int64_t end;
};

// Each with prefix(): the keys the sorter sorts first (spill_sorter.h).
using Prefix = std::pair<uint64_t, uint64_t>;
struct ByStart {
  bool operator()(const Memory& a, const Memory& b) const { return a.start_ns < b.start_ns; }
  static Prefix prefix(const Memory& m) { return {m.start_ns, 0}; }
};
// As the loader hands paired work out: by call, then start.
struct ByCall {
  bool operator()(const Work& a, const Work& b) const {
    return std::tuple(a.call.correlation, a.record.start_ns, a.seq) <
           std::tuple(b.call.correlation, b.record.start_ns, b.seq);
  }
  static Prefix prefix(const Work& w) { return {w.call.correlation, w.record.start_ns}; }
};
struct BySeq {
  bool operator()(const Work& a, const Work& b) const { return a.seq < b.seq; }
  static Prefix prefix(const Work& w) { return {w.seq, 0}; }
};
struct ByDevice {
  bool operator()(const Busy& a, const Busy& b) const {
    return std::tuple(a.device, a.start, a.end) < std::tuple(b.device, b.start, b.end);
  }
  // Signed times in unsigned order: the sign bit flipped.
  static Prefix prefix(const Busy& b) {
    return {b.device, static_cast<uint64_t>(b.start) ^ (uint64_t{1} << 63)};
  }
};

// In input_shapes: a range item whose message or domain had not been read
// when it closed; `name` and `domain` hold the file's ids until
// finish_ranges names it.
constexpr uint32_t kLateName = UINT32_MAX;

}  // namespace

// Each of the pairing's sorters keeps `bytes` before it spills.
struct FileEvents::Join {
  explicit Join(const analysis::SortResources& sort)
      : sort(sort),
        pairing(sort),
        unpaired(sorter<Work, BySeq>()),
        paired(sorter<Work, ByCall>()),
        busy(sorter<Busy, ByDevice>()),
        memory(sorter<Memory, ByStart>()) {}
  template <typename T, typename Less>
  analysis::SpillSorter<T, Less> sorter() const {
    return sort.make<T, Less>();
  }
  analysis::SortResources sort;
  analysis::CallPairing<CallKey, GpuIn> pairing;
  analysis::SpillSorter<Work, BySeq> unpaired;
  analysis::SpillSorter<Work, ByCall> paired;
  analysis::SpillSorter<Busy, ByDevice> busy;
  analysis::SpillSorter<Memory, ByStart> memory;
};

FileEvents::FileEvents(analysis::FileInfo& info, const EventCut& cut, size_t sort_memory,
                       bool spill_in_background)
    : info_(info),
      facts_(info),
      ranges_(sort_memory, [this](const analysis::Range& r, uint64_t number,
                                  bool crossing) { add_range(r, number, crossing); }),
      waiting_(analysis::SpillSorter<Item, Earlier>::records_in(sort_memory)),
      join_(std::make_unique<Join>(analysis::SortResources{sort_memory, spill_in_background,
                                                           spill_in_background ? 2u : 1u})),
      items_(analysis::SpillSorter<Item, Earlier>::records_in(sort_memory)),
      cut_(cut, 0),
      helpers_(spill_in_background) {
  if (spill_in_background) items_.spill_in_background();
}
FileEvents::~FileEvents() = default;

void FileEvents::on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) {
  facts_.devices(devices);
}

void FileEvents::on_header(const pb::FileHeader& header) {
  facts_.header(header);
}

void FileEvents::on_string(const pb::StringEntry& entry) {
  facts_.string(entry);
  if (entry.kind() == pb::StringEntry::DOMAIN) domains_[entry.id()] = strings_.id(entry.value());
}

void FileEvents::on_cupti(const pb::CuptiStatus& status) {
  facts_.cupti(status);
  if (gaps_counted_ && !gaps_.status(status)) gaps_counted_ = false;
}
void FileEvents::on_footer(const pb::Footer& footer) {
  facts_.footer(footer);
}

uint32_t FileEvents::track(bool gpu, uint32_t device, uint32_t tid) {
  const uint64_t key = uint64_t{gpu} << 63 | uint64_t{device} << 32 | tid;
  // Runs of records of one thread or stream are the rule: no hash lookup.
  if (key == last_track_.first && !tracks_.empty()) return last_track_.second;
  // find before emplace: emplace makes (allocates) a node even for a key it has.
  auto it = track_index_.find(key);
  if (it == track_index_.end()) {
    it = track_index_.emplace(key, static_cast<uint32_t>(tracks_.size())).first;
    tracks_.push_back(Track{gpu, device, tid, false});
  }
  last_track_ = {key, it->second};
  return it->second;
}

bool FileEvents::kept_slices(uint32_t track) {
  // Only a track with slices before the cut can keep some: the extra pass
  // is for the rare tid-0 thread or stream.
  if (!tracks_[track].slices || !cut_.cuts()) return tracks_[track].slices;
  if (kept_slices_.empty()) {
    kept_slices_.assign(tracks_.size(), false);
    for_each_kept([&](const Item& e) {
      if (e.kind != EventKind::kCounter) kept_slices_[e.track] = true;
    });
  }
  return kept_slices_[track];
}

void FileEvents::add(const Item& item) {
  if (item.kind != EventKind::kCounter) tracks_[item.track].slices = true;
  items_.add(item);
}

uint32_t FileEvents::demangled(uint32_t kernel) {
  // Launches of one kernel come in runs: no lookup.
  if (kernel == last_kernel_.first && kernel != 0) return last_kernel_.second;
  const std::string* name = kernel_name(kernel);
  if (name == nullptr) return kNoIndex;
  auto it = demangled_.find(kernel);
  if (it == demangled_.end())
    it = demangled_.emplace(kernel, strings_.id(analysis::demangle(*name))).first;
  last_kernel_ = {kernel, it->second};
  return it->second;
}

// Names are shared by all records of a kind and kernel (or memory kinds),
// so that a million launches of one kernel are named once.
uint32_t FileEvents::row_name(const GpuRecord& r) {
  // A kernel whose name was found keeps it: runs of one kernel skip both lookups.
  const bool kernel_kind = r.kind == GpuKind::kKernel;
  if (kernel_kind && r.kernel == last_row_kernel_.first && r.kernel != 0)
    return last_row_kernel_.second;
  const std::string* kernel = kernel_kind ? kernel_name(r.kernel) : nullptr;
  const uint64_t key = analysis::gpu_row_name_key(r, kernel != nullptr);
  auto it = row_names_.find(key);
  if (it == row_names_.end())
    it = row_names_.emplace(key, strings_.id(analysis::gpu_row_name(r, kernel))).first;
  if (kernel != nullptr) last_row_kernel_ = {r.kernel, it->second};
  return it->second;
}

void FileEvents::on_api(const ApiRecord& r) {
  const ApiInfo* api = api_info(r.api);
  if (api == nullptr) return;  // the reader skips unknown APIs; be safe anyway
  seen(r.start_ns, r.end_ns);
  const uint32_t index = calls_++;
  const uint64_t end = std::max(r.end_ns, r.start_ns);
  Item e{};
  e.start_ns = r.start_ns;
  e.dur_ns = end - r.start_ns;
  e.ref = index;
  e.track = track(false, 0, r.tid);
  e.kind = EventKind::kCall;
  e.call = CallPart{r.correlation,
                    r.stream,
                    r.bytes,
                    r.grid,
                    r.block,
                    r.shared_mem,
                    api->fields & kFieldLaunch ? demangled(r.kernel) : kNoIndex,
                    r.result,
                    r.api};
  add(e);
  if (api->category == ApiCategory::kLaunch) gaps_.launch(r.start_ns, r.correlation);
  if (r.correlation != 0) {
    join_->pairing.add_call(CallKey{r.correlation, r.start_ns, end, e.track, index});
  }
  if (r.result == 0) {
    if (const auto effect = analysis::memory_effect(r.api))
      join_->memory.add(Memory{r.start_ns, end, r.address, r.bytes, *effect});
  }
}

void FileEvents::on_range(const RangeEvent& event) {
  if (event.op != RangeOp::kNameThread && event.op != RangeOp::kNameCategory)
    seen(event.time_ns, event.time_ns);
  ranges_.add(event);
}

void FileEvents::on_gpu(const GpuRecord& record) {
  // The shim drops records CUPTI could not time; never show them as
  // zero-length work at time 0 should one get through.
  if (facts_.untimed(record.start_ns, record.end_ns)) return;
  seen(record.start_ns, record.end_ns);
  if (!windowed()) gaps_.gpu(record.start_ns);
  join_->pairing.add_gpu(GpuIn{record, gpu_seq_++, record.correlation});
}

void FileEvents::on_external_correlation(uint64_t correlation, uint64_t external_id) {
  join_->pairing.add_external(correlation, external_id);
}

// The shim names its window in the header (collector/output/writer_metadata.cc).
bool FileEvents::windowed() const {
  return info_.header && analysis::has_capture_window(*info_.header);
}

void FileEvents::finish(int64_t to_relative, uint64_t busy_bucket_ns) {
  cut_.set_to_relative(to_relative);
  finish_ranges();
  pair_gpu();
  add_memory_counters();
  add_busy_counters(to_relative, busy_bucket_ns);
  join_.reset();
}

void FileEvents::finish_ranges() {
  // Open ranges end when the process did: at the footer's time when the
  // file has one, else at the last record.
  uint64_t last = info_.last_ns;
  if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
  ranges_.finish(last, info_.ranges);
  for (const auto& [tid, name] : ranges_.thread_names()) {
    const std::string* text = string_of(pb::StringEntry::NVTX, name);
    if (text == nullptr) text = string_of(pb::StringEntry::THREAD, name);
    if (text != nullptr) info_.thread_names[tid] = *text;
  }
  // Threads without calls get their tracks after those with calls, in the
  // order of their first range; then their ranges join the others.
  std::vector<std::pair<uint64_t, uint32_t>> firsts;  // (first range, tid)
  for (const auto& [tid, first] : ranges_.first_opened())
    if (!has_thread_track(tid)) firsts.emplace_back(first, tid);
  std::sort(firsts.begin(), firsts.end());
  for (const auto& [first, tid] : firsts) track(false, 0, tid);
  {
    auto cursor = waiting_.sorted();
    Item e;
    while (cursor.next(e)) {
      if (e.kind != EventKind::kCall && e.kind != EventKind::kGpu &&
          e.kind != EventKind::kCounter && e.range.input_shapes == kLateName)
        name_late_range(e);
      e.track = track(false, 0, e.track);
      add(e);
    }
  }
  waiting_ = analysis::SpillSorter<Item, Earlier>(1);  // its memory and temporary file go
  add_steps();
}

// kineto's ProfilerStep#N over each step, on the step's thread, numbered
// from 0 in time order; the numbers after every range's.
void FileEvents::add_steps() {
  const std::vector<StepRanges::Step> steps = steps_.finish();
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepRanges::Step& s = steps[i];
    Item e{};
    e.ref = ranges_.opened() + i;
    e.start_ns = s.start_ns;
    e.dur_ns = s.end_ns - s.start_ns;
    e.kind = EventKind::kRange;
    e.track = track(false, 0, s.tid);
    e.range = RangePart{0,
                        0,
                        strings_.id("ProfilerStep#" + std::to_string(i)),
                        analysis::Interner::kEmpty,
                        analysis::Interner::kEmpty,
                        false};
    add(e);
  }
}

bool FileEvents::has_thread_track(uint32_t tid) const {
  return track_index_.contains(uint64_t{tid});
}

std::pair<uint32_t, uint32_t> FileEvents::range_name(uint32_t domain, uint32_t message) {
  // One name per (message, domain), built once however many ranges use it.
  const uint64_t key = static_cast<uint64_t>(domain) << 32 | message;
  auto it = range_names_.find(key);
  if (it == range_names_.end()) {
    const std::string* text = string_of(pb::StringEntry::NVTX, message);
    const std::string_view shapes = text ? analysis::torch_input_shapes(*text) : std::string_view();
    const uint32_t name =
        strings_.id(analysis::range_row_name(text, string_of(pb::StringEntry::DOMAIN, domain)));
    it = range_names_
             .emplace(key, std::pair(name, shapes.empty() ? analysis::Interner::kEmpty
                                                          : strings_.id(shapes)))
             .first;
  }
  return it->second;
}

void FileEvents::name_late_range(Item& e) {
  RangePart& r = e.range;
  const auto [name, shapes] = range_name(r.domain, r.name);
  auto domain = domains_.find(r.domain);
  r.domain = domain == domains_.end() ? analysis::Interner::kEmpty : domain->second;
  r.name = name;
  r.input_shapes = shapes;
  if (e.kind == EventKind::kRange || e.kind == EventKind::kAsyncBegin)
    cut_.add_range(strings_.text(name), {e.start_ns, e.start_ns + e.dur_ns});
}

void FileEvents::add_range(const analysis::Range& r, uint64_t number, bool crossing) {
  // One lookup for a (domain, message) whose strings were read: they stay.
  const uint64_t key = static_cast<uint64_t>(r.domain) << 32 | r.name;
  auto named = named_ranges_.find(key);
  bool late = false;
  if (named == named_ranges_.end()) {
    late = (r.name != 0 && string_of(pb::StringEntry::NVTX, r.name) == nullptr) ||
           (r.domain != 0 && string_of(pb::StringEntry::DOMAIN, r.domain) == nullptr);
    if (!late) {
      const auto [name, shapes] = range_name(r.domain, r.name);
      auto domain = domains_.find(r.domain);
      named = named_ranges_
                  .emplace(key, RangeNames{name, shapes,
                                           domain == domains_.end() ? analysis::Interner::kEmpty
                                                                    : domain->second})
                  .first;
    }
  }
  const RangeNames names = late ? RangeNames{r.name, kLateName, r.domain} : named->second;
  Item e{};
  e.ref = number;
  e.range = RangePart{r.seq, r.op_id, names.name, names.domain, names.shapes, r.open_at_exit};
  const uint64_t dur = r.end_ns - r.start_ns;
  // A push/pop range that crosses another of its thread cannot be a slice
  // of that thread's track (slices nest there): it becomes an async slice,
  // as start/end ranges are.
  const analysis::RangeKind kind =
      r.kind == analysis::RangeKind::kPushPop && crossing ? analysis::RangeKind::kStartEnd : r.kind;
  // The thread's track when it has one, else its id until finish_ranges.
  const bool known = !late && has_thread_track(r.tid);
  const auto put = [&](const Item& item) {
    if (known) {
      Item placed = item;
      placed.track = track(false, 0, r.tid);
      add(placed);
    } else {
      Item waiting = item;
      waiting.track = r.tid;
      waiting_.add(waiting);
    }
  };
  switch (kind) {
    case analysis::RangeKind::kPushPop:
      e.start_ns = r.start_ns;
      e.dur_ns = dur;
      e.kind = EventKind::kRange;
      put(e);
      if (!late) {
        cut_.add_range(strings_.text(names.name), {r.start_ns, r.end_ns});
        if (!crossing) steps_.add(strings_.text(names.name), r.tid, r.start_ns, r.end_ns);
      }
      break;
    case analysis::RangeKind::kStartEnd:
      e.start_ns = r.start_ns;
      e.dur_ns = dur;
      e.kind = EventKind::kAsyncBegin;
      put(e);
      e.start_ns = r.end_ns;
      e.kind = EventKind::kAsyncEnd;
      put(e);
      if (!late) cut_.add_range(strings_.text(names.name), {r.start_ns, r.end_ns});
      break;
    case analysis::RangeKind::kMark:
      e.start_ns = r.start_ns;
      e.dur_ns = 0;
      e.kind = EventKind::kMark;
      put(e);
      break;
  }
}

// Pairs each GPU record with its call (analysis/read/call_pairing.h);
// then numbers the work as the loader hands it out.
void FileEvents::pair_gpu() {
  Join& j = *join_;
  analysis::GpuCounts& counts = info_.gpu;
  counts.external_correlations = j.pairing.external_count();
  const analysis::CaptureWindows window(windowed(), info_.cupti);
  const auto handed_out = [&](const GpuIn& g, const CallKey* call) {
    const GpuRecord& r = g.record;
    if (call == nullptr && window.outside(r.start_ns)) {
      ++counts.outside_window;
      return;
    }
    ++counts.records;
    counts.count(r.kind);
    if (call == nullptr) ++counts.unpaired;
    if (call != nullptr && r.kind != GpuKind::kSync) {
      // Unwrapped ids are no longer the calls' as read.
      if (call->correlation >> 32 != 0 && !is_pushed_id(call->correlation)) gaps_counted_ = false;
      gaps_.worked(call->correlation);
    }
    // A sync pairs, but is no GPU work: a slice of its own row, no flow.
    if (call == nullptr || r.kind == GpuKind::kSync)
      j.unpaired.add(Work{r, g.seq, CallKey{}});
    else
      j.paired.add(Work{r, g.seq, *call});
  };
  // The join's visit: each record handed out with its call or none.
  struct Visit {
    const decltype(handed_out)& hand;
    CallKey call;
    void owner(const CallKey& c) { call = c; }
    void issued(const GpuIn& g) { hand(g, &call); }
    void owned() {}
    void other(const CallKey&) {}
    void unpaired(const GpuIn& g) { hand(g, nullptr); }
  } visit{handed_out, {}};
  j.pairing.pair(j.pairing.mode(info_.cupti), visit);
  if (const analysis::CorrelationUnwrap* unwrap = j.pairing.call_unwrap()) call_unwrap_ = *unwrap;
  // The unpaired work in file order, then the paired by call and start: GPU
  // work indices (flow ids) and GPU tracks follow this order.
  {
    auto cursor = j.unpaired.sorted();
    Work w;
    while (cursor.next(w)) number_gpu(w.record, nullptr);
  }
  analysis::SortedRecords<Work, ByCall> cursor(j.paired, lanes());
  Work w;
  uint64_t last_call = 0;
  uint32_t sub = 0;
  bool first = true;
  while (cursor.next(w)) {
    if (first || w.call.index != last_call) sub = 0;
    first = false;
    last_call = w.call.index;
    number_gpu(w.record, &w.call);
    // The call's flow start, written right after the call.
    Item s{};
    s.start_ns = w.call.start_ns;
    s.dur_ns = w.call.end_ns - w.call.start_ns;
    s.ref = w.call.index;
    s.track = w.call.track;
    s.sub = ++sub;
    s.kind = EventKind::kCall;
    s.has_call = true;
    s.other_start = w.record.start_ns;  // the GPU end
    s.other_end = std::max(w.record.end_ns, w.record.start_ns);
    s.flow_id = gpu_count_ - 1;
    items_.add(s);
  }
  if (gaps_counted_ && !windowed() && info_.cupti && info_.cupti->gaps_size() > 0 &&
      gaps_.finish(*info_.cupti))
    info_.gaps = gaps_.counts();
}

void FileEvents::number_gpu(const GpuRecord& r, const CallKey* call) {
  const uint64_t end = std::max(r.end_ns, r.start_ns);
  Item e{};
  e.start_ns = r.start_ns;
  e.dur_ns = end - r.start_ns;
  e.ref = gpu_count_++;
  const bool sync = r.kind == GpuKind::kSync;
  e.track = track(true, r.device, sync ? sync_tid(r.stream) : r.stream);
  e.kind = EventKind::kGpu;
  e.has_call = call != nullptr;
  if (call != nullptr) {
    ++flow_ends_;
    e.other_start = call->start_ns;
    e.other_end = call->end_ns;
  }
  GpuPart& g = e.gpu;
  g.correlation = call != nullptr ? call->correlation : r.correlation;
  g.graph_node = r.graph_node;
  g.graph = r.graph;
  g.device = r.device;
  g.stream = r.stream;
  g.name = sync ? strings_.id(analysis::kineto_sync_name(r.detail)) : row_name(r);
  g.kind = r.kind;
  if (r.kind == GpuKind::kKernel)
    g.launch = GpuLaunch{r.grid, r.block, r.shared_mem, r.registers};
  else
    g.bytes = r.bytes;
  add(e);
  if (e.dur_ns != 0 && !sync && cut_.gpu_kept(e)) {
    const int64_t start = static_cast<int64_t>(r.start_ns) + cut_.to_relative();
    join_->busy.add(Busy{r.device, start, start + static_cast<int64_t>(e.dur_ns)});
  }
}

// In time order (stable: as AllocationLedger::resolve), keeping only the
// live allocations in memory.
void FileEvents::add_memory_counters() {
  if (join_->memory.size() == 0) return;
  const uint32_t where = track(false, 0, 0);
  analysis::LiveAllocations live;
  int64_t in_use[2] = {0, 0};
  auto cursor = join_->memory.sorted();
  Memory m;
  while (cursor.next(m)) {
    const int64_t bytes = live.apply(m.effect, m.address, m.bytes);
    if (bytes == 0) continue;
    const bool device = m.effect.space == analysis::MemorySpace::kDevice;
    int64_t& level = in_use[device ? 0 : 1];
    level += bytes;
    Item e{};
    e.start_ns = m.start_ns;
    e.ref = counters_++;
    e.track = where;
    e.kind = EventKind::kCounter;
    e.has_call = true;
    e.other_start = m.start_ns;
    e.other_end = m.end_ns;
    e.counter = CounterPart{static_cast<double>(level),
                            device ? Counter::kDeviceMemory : Counter::kHostMemory};
    add(e);
  }
}

void FileEvents::add_busy_counters(int64_t to_relative, uint64_t bucket_ns) {
  analysis::SortedRecords<Busy, ByDevice> cursor(join_->busy, lanes());
  Busy b;
  std::optional<DeviceBusy> device;
  uint32_t current = 0;
  while (cursor.next(b)) {
    if (!device || b.device != current) {
      if (device) device->finish();
      current = b.device;
      const uint32_t where = track(true, b.device, 0);
      device.emplace(bucket_ns, kLeadNs, cut_.window(),
                     [this, where, to_relative](int64_t start, double percent) {
                       Item e{};
                       e.start_ns = static_cast<uint64_t>(start - to_relative);
                       e.ref = counters_++;
                       e.track = where;
                       e.kind = EventKind::kCounter;
                       e.counter = CounterPart{percent, Counter::kGpuBusy};
                       add(e);
                     });
    }
    device->add(b.start, b.end);
  }
  if (device) device->finish();
}

}  // namespace gprof::trace
