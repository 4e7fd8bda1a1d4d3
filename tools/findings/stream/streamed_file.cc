#include "tools/findings/stream/streamed_file.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "tools/analysis/model/glob.h"
#include "tools/analysis/model/steps.h"
#include "tools/findings/stream/stream_scan.h"

namespace gprof::findings::stream {
namespace {

struct Busy {
  uint32_t device;
  uint32_t name;  // Work::name, for FirstRuns
  bool kernel;    // for StartupFinder
  // Work no call issued, noted while pairing: in scope when the windows,
  // known only once paired (span_window), cover its start.
  bool check_window;
  uint64_t start_ns;
  uint64_t end_ns;
};
struct ByDeviceTime {
  bool operator()(const Busy& a, const Busy& b) const {
    return std::tie(a.device, a.start_ns, a.end_ns) < std::tie(b.device, b.start_ns, b.end_ns);
  }
  static Prefix prefix(const Busy& b) { return {b.device, b.start_ns}; }
};
struct KernelEnd {
  uint32_t device;
  uint64_t end_ns;
};
struct ByDeviceEnd {
  bool operator()(const KernelEnd& a, const KernelEnd& b) const {
    return std::tie(a.device, a.end_ns) < std::tie(b.device, b.end_ns);
  }
  static Prefix prefix(const KernelEnd& e) { return {e.device, e.end_ns}; }
};
// memcpy-dtoh-sync's question for a copy: did a kernel of its device end
// between its call's start and its own?
struct ByDeviceCallStart {
  bool operator()(const GpuRecordRow& a, const GpuRecordRow& b) const {
    return std::tie(a.work.device, a.call.start_ns, a.seq) <
           std::tie(b.work.device, b.call.start_ns, b.seq);
  }
  static Prefix prefix(const GpuRecordRow& g) { return {g.work.device, g.call.start_ns}; }
};
struct FoundGap {
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t order;
  uint32_t device;
};
struct ByGapStart {
  bool operator()(const FoundGap& a, const FoundGap& b) const {
    return std::tie(a.start_ns, a.order) < std::tie(b.start_ns, b.order);
  }
  static Prefix prefix(const FoundGap& g) { return {g.start_ns, g.order}; }
};

using Windows = std::vector<std::pair<uint64_t, uint64_t>>;

// A sort read to its end gives back its memory and temporary file.
template <typename T, typename Less>
void release(analysis::SpillSorter<T, Less>& sorter) {
  sorter = analysis::SpillSorter<T, Less>(1);
}

// What gpu-idle's explanation needs of a call.
struct CallSpan {
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t index;
  ApiId api;
};
struct SpanByStart {
  bool operator()(const CallSpan& a, const CallSpan& b) const {
    return std::tie(a.start_ns, a.index) < std::tie(b.start_ns, b.index);
  }
  static Prefix prefix(const CallSpan& c) { return {c.start_ns, c.index}; }
};

class FileJoin {
 public:
  // `rules`: gpu-idle's settings, which find the setup (its thresholds only).
  FileJoin(const Scope& scope, Timeline& timeline, FileScan& scan, analysis::FileInfo& info,
           const GpuIdleTally& rules)
      : scope_(scope),
        timeline_(timeline),
        scan_(scan),
        counts_(info.gpu),
        idle_rules_(rules),
        windowed_(scan, info) {}

  // What no tally sees: any thread, files at once.
  void prepare() {
    name_facts();
    steps_and_windows();
    // Each sort is let go once read, with its temporary file.
    place_calls();
    release(scan_.calls);
    release(scan_.ranges_by_thread);
    pair();
    release(by_correlation_);
    release(scan_.gpu);
    span_window();  // a windowed file's span is known once paired (WindowedGpu)
    find_setup();
  }

  // The tallies, in file order; after prepare().
  void feed(Tallies& tallies) {
    tallies_ = &tallies;
    call_rules();
    release(by_thread_);
    work_rules();
    release(work_);
    memcpy_dtoh_sync();
    release(questions_);
    release(kernel_ends_);
    gpu_idle();
  }

  // Busy time in scope, for gpu-idle and the setup (streamed while pairing:
  // a call's scope is known then, that of work no call issued once paired).
  void add_busy(const Work& w, bool in_scope, bool check_window) {
    if (!in_scope && !check_window) return;
    const bool kernel = w.kind == GpuKind::kKernel;
    busy_.add(Busy{w.device, w.name, kernel, check_window, w.start_ns, w.end_ns});
    // For has_startup() only: without --range, where every call is in scope
    // and the one window spans all kept work, so that work no call issued
    // is in scope too.
    if (!timeline_.ranged) kernels_[w.device] += kernel ? 1 : 0;
  }
  bool in_scope(const Busy& b) const {
    return !b.check_window || timeline_.windows_cover(b.start_ns);
  }

 private:
  const std::string* range_name(int32_t name) const {
    return name == kNone ? nullptr : &scan_.range_names()[name];
  }
  CallPlace place(const Call& call, int32_t name) const {
    return CallPlace{range_name(name), call.step, call.tid};
  }

  // Per range name: the first step pattern it matches, and --range.
  void name_facts() {
    const std::vector<std::string>& names = scan_.range_names();
    step_pattern_.resize(names.size(), SIZE_MAX);
    in_range_.resize(names.size(), false);
    loads_data_.resize(names.size(), false);
    for (size_t i = 0; i < names.size(); ++i) {
      for (size_t p = 0; p < scope_.steps.size(); ++p)
        if (analysis::glob_match(scope_.steps[p], names[i])) {
          step_pattern_[i] = p;
          break;
        }
      in_range_[i] = analysis::glob_match_any(scope_.ranges, names[i]);
      loads_data_[i] = analysis::glob_match_any(scope_.data, names[i]);
    }
  }

  // TimelineBuilder::find_steps and set_windows, over the ranges by start.
  void steps_and_windows() {
    size_t best = SIZE_MAX;
    std::vector<Step> steps;
    Windows windows, loading;
    auto cursor = scan_.ranges_by_start.sorted();
    RangeRecord r;
    while (cursor.next(r)) {
      const size_t p = step_pattern_[r.name];
      if (p < best) {
        best = p;
        steps.clear();
      }
      if (p != SIZE_MAX && p == best) {
        if (steps.empty() || r.start_ns >= steps.back().end_ns)
          steps.push_back(Step{r.start_ns, r.end_ns, kNone});
      }
      if (!scope_.ranges.empty() && in_range_[r.name]) windows.emplace_back(r.start_ns, r.end_ns);
      // Joined as they come (by start), as merged_windows would.
      if (loads_data_[r.name]) {
        if (!loading.empty() && r.start_ns <= loading.back().second)
          loading.back().second = std::max(loading.back().second, r.end_ns);
        else
          loading.emplace_back(r.start_ns, r.end_ns);
      }
    }
    timeline_.data_loading = std::move(loading);
    timeline_.steps = std::move(steps);
    if (best != SIZE_MAX) timeline_.step_pattern = scope_.steps[best];
    if (!scope_.ranges.empty()) {
      timeline_.windows = merged_windows(std::move(windows));
      timeline_.ranged = true;
    }
  }

  // Without --range: the span of the calls and the GPU work.
  void span_window() {
    if (scope_.ranges.empty() && window_begin(scan_.span_begin, scan_.work_begin) < scan_.span_end)
      timeline_.windows = {{window_begin(scan_.span_begin, scan_.work_begin), scan_.span_end}};
  }

  // TimelineBuilder::place_calls: a thread's ranges by start (longer
  // first) and its calls by start, swept together.
  void place_calls() {
    auto calls = scan_.calls.sorted();
    auto ranges = scan_.ranges_by_thread.sorted();
    RangeRecord r{};
    bool has_r = ranges.next(r);
    std::vector<RangeRecord> open;
    uint32_t thread = 0;
    bool any = false;
    const bool filtered = !scope_.ranges.empty();
    CallRecord c;
    while (calls.next(c)) {
      if (!any || c.call.tid != thread) {
        open.clear();
        thread = c.call.tid;
        any = true;
      }
      while (has_r && (r.tid < thread || (r.tid == thread && r.start_ns <= c.call.start_ns))) {
        if (r.tid == thread) {
          // What ends before this range starts ends before every later call.
          std::erase_if(open, [&](const RangeRecord& o) { return o.end_ns < r.start_ns; });
          open.push_back(r);
        }
        has_r = ranges.next(r);
      }
      std::erase_if(open, [&](const RangeRecord& o) { return o.end_ns < c.call.start_ns; });
      c.range_name = open.empty() ? kNone : static_cast<int32_t>(open.back().name);
      if (filtered)
        c.call.in_scope = std::any_of(open.begin(), open.end(),
                                      [&](const RangeRecord& o) { return in_range_[o.name]; });
      c.call.step = step_at(timeline_, c.call.start_ns);
      by_correlation_.add(c);
      by_start_.add(CallSpan{c.call.start_ns, c.call.end_ns, c.index, c.call.api});
    }
  }

  void emit_call(const PairedCall& paired) {
    const Call& c = paired.call.call;
    if (c.work > 0) {
      auto [it, added] = last_issue_.try_emplace(c.tid, c.start_ns);
      if (!added) it->second = std::max(it->second, c.start_ns);
    }
    by_thread_.add(paired);
  }

  // Which call issued what (analysis/read/correlation_join.h).
  void pair() { scan_.join(by_correlation_, *this); }

 public:  // the join's visit
  void owner(const CallRecord& c) { owner_ = PairedCall{c, 0, false, {}}; }
  void issued(const GpuScan& g) {
    windowed_.paired(g);
    if (!g.is_work) return;
    scan_.worked(owner_.call.correlation);
    GpuRecordRow row;
    row.work = g.work;
    row.work.call = static_cast<int32_t>(owner_.call.index);
    row.seq = g.seq;
    row.has_call = true;
    row.call = owner_.call.call;
    row.range_name = owner_.call.range_name;
    ++owner_.call.call.work;
    owner_.gpu_ns += g.work.duration();
    if (!owner_.has_first) {
      owner_.has_first = true;
      owner_.first = row.work;
      row.first_of_call = true;
    }
    work_.add(row);
    add_busy(g.work, owner_.call.call.in_scope, false);
  }
  void owned() { emit_call(owner_); }
  void other(const CallRecord& c) { emit_call(PairedCall{c, 0, false, {}}); }
  void unpaired(const GpuScan& g) {
    if (!windowed_.unpaired(g)) return;
    ++counts_.unpaired;
    if (!g.is_work) return;
    GpuRecordRow row;
    row.work = g.work;
    row.seq = g.seq;
    work_.add(row);
    // With --range the windows are known (steps_and_windows); else once paired.
    if (timeline_.ranged)
      add_busy(g.work, timeline_.windows_cover(g.work.start_ns), false);
    else
      add_busy(g.work, false, true);
  }

 private:
  void call_rules() {
    auto calls = by_thread_.sorted();
    PairedCall paired;
    bool any = false;
    uint32_t thread = 0;
    while (calls.next(paired)) {
      const CallRecord& c = paired.call;
      if (any && c.call.tid != thread) tallies_->launch_bound.end_thread();
      any = true;
      thread = c.call.tid;
      const CallPlace p = place(c.call, c.range_name);
      const Work* first = paired.has_first ? &paired.first : nullptr;
      const auto issue = last_issue_.find(c.call.tid);
      tallies_->excessive_sync.add(timeline_, c.call, p, first,
                                   issue == last_issue_.end() ? nullptr : &issue->second);
      if (c.call.category == ApiCategory::kLaunch && c.call.work > 0 && timeline_.counted(c.call))
        tallies_->launch_bound.launch(timeline_, c.call, p, paired.gpu_ns, first);
    }
    tallies_->launch_bound.end_thread();
    tallies_->excessive_sync.end_file(timeline_);
  }

  void work_rules() {
    tallies_->pageable_memcpy.begin_file();
    tallies_->small_memcpy.begin_file();
    tallies_->straggler.begin_file(timeline_);
    tallies_->exposed_comm.begin_file(timeline_);
    auto work = work_.sorted();
    GpuRecordRow g;
    while (work.next(g)) {
      const Work& w = g.work;
      const CallPlace p = place(g.call, g.range_name);
      const bool in_scope = g.has_call ? g.call.in_scope : timeline_.windows_cover(w.start_ns);
      const bool counted =
          g.has_call ? timeline_.counted(g.call) : timeline_.counted_without_call(w.start_ns);
      const WorkEvent event{w, g.has_call ? &g.call : nullptr, g.has_call ? &p : nullptr, in_scope,
                            counted};
      tallies_->pageable_memcpy.add(timeline_, event);
      tallies_->small_memcpy.add(timeline_, event);
      tallies_->straggler.add(timeline_, event);
      tallies_->exposed_comm.add(timeline_, event);
      if (g.has_call && MemcpyDtohSyncTally::candidate(timeline_, g.call, w, g.first_of_call))
        questions_.add(g);
      if (w.kind == GpuKind::kKernel) kernel_ends_.add(KernelEnd{w.device, w.end_ns});
      if (std::find(devices_.begin(), devices_.end(), w.device) == devices_.end())
        devices_.push_back(w.device);
    }
    tallies_->straggler.end_file(timeline_);
    tallies_->exposed_comm.end_file(timeline_);
  }

  // The first kernel end of the copy's device at or after its call's start
  // (questions and ends both by device and time): before the copy began?
  void memcpy_dtoh_sync() {
    auto questions = questions_.sorted();
    auto ends = kernel_ends_.sorted();
    KernelEnd e{};
    bool has_e = ends.next(e);
    GpuRecordRow g;
    while (questions.next(g)) {
      while (has_e && std::tie(e.device, e.end_ns) < std::tie(g.work.device, g.call.start_ns))
        has_e = ends.next(e);
      if (!has_e || e.device != g.work.device || e.end_ns > g.work.start_ns) continue;
      tallies_->memcpy_dtoh_sync.add(timeline_, g.call, place(g.call, g.range_name), g.work);
    }
  }

  // Each device's first busy start and last end, for gpu-idle's window, and
  // the end of its start-up (StartupFinder), before any rule counts: the
  // setup they leave out (file_setup_end).
  void find_setup() {
    const bool startup = has_startup(timeline_);
    const bool warmup = idle_rules_.finds_warmup(timeline_);
    std::vector<uint64_t> startup_ends;
    auto busy = busy_.sorted();
    Busy b{};
    bool has_b = busy.next(b);
    while (has_b && !in_scope(b)) has_b = busy.next(b);
    while (has_b) {
      const uint32_t device = b.device;
      std::pair<uint64_t, uint64_t>& span = extent_[device] = {b.start_ns, b.end_ns};
      StartupFinder finder = idle_rules_.startup_finder(startup ? kernels_[device] : 0);
      FirstRuns& first_runs = first_runs_[device];
      for (; has_b && b.device == device; has_b = busy.next(b)) {
        if (!in_scope(b)) continue;
        span.second = std::max(span.second, b.end_ns);
        finder.add(b.start_ns, b.end_ns, b.kernel);
        if (warmup) first_runs.add(b.start_ns, timeline_.names[b.name], b.kernel);
      }
      startup_ends_[device] = finder.end_ns();
      startup_ends.push_back(finder.end_ns());
      while (has_b && !in_scope(b)) has_b = busy.next(b);
    }
    timeline_.setup_end_ns = file_setup_end(timeline_, startup_ends);
    timeline_.setup_found = true;
  }

  void gpu_idle() {
    std::sort(devices_.begin(), devices_.end());
    analysis::SpillSorter<FoundGap, ByGapStart> gaps = scan_.sort().make<FoundGap, ByGapStart>();
    find_gaps(gaps);
    release(busy_);
    explain_gaps(gaps);
  }

  void find_gaps(analysis::SpillSorter<FoundGap, ByGapStart>& gaps) {
    GpuIdleTally& tally = tallies_->gpu_idle;
    auto busy = busy_.sorted();
    Busy b{};
    bool has_b = busy.next(b);
    for (uint32_t device : devices_) {
      const auto it = extent_.find(device);
      if (it == extent_.end()) continue;
      const uint64_t min_gap = std::max<uint64_t>(tally.min_gap(), 1);
      const uint64_t startup_end = startup_ends_[device];
      const FirstRuns& first_runs = first_runs_[device];
      uint64_t warmup_idle = 0;
      GapFinder finder(device_windows(timeline_, it->second.first, it->second.second, startup_end),
                       min_gap, [&](uint64_t start, uint64_t end) {
                         if (!tally.take_warmup(timeline_, first_runs, start, end, warmup_idle))
                           gaps.add(FoundGap{start, end, tally.next_order(), device});
                       });
      uint64_t setup_idle = 0;
      std::optional<GapFinder> setup;
      if (const auto window =
              setup_window(timeline_, it->second.first, it->second.second, startup_end))
        setup.emplace(std::vector{*window}, min_gap,
                      [&](uint64_t start, uint64_t end) { setup_idle += end - start; });
      while (has_b && b.device < device) has_b = busy.next(b);
      for (; has_b && b.device == device; has_b = busy.next(b)) {
        if (!in_scope(b)) continue;
        finder.add(b.start_ns, b.end_ns);
        if (setup) setup->add(b.start_ns, b.end_ns);
      }
      finder.finish();
      tally.add_window(finder.window_ns() - warmup_idle);
      if (setup) {
        setup->finish();
        tally.add_setup(timeline_, setup->window_ns(), setup_idle);
      }
    }
  }

  void explain_gaps(analysis::SpillSorter<FoundGap, ByGapStart>& gaps) {
    GpuIdleTally& tally = tallies_->gpu_idle;
    auto gap_cursor = gaps.sorted();
    auto ranges = scan_.ranges_by_start.sorted();
    auto calls = by_start_.sorted();
    RangeRecord r{};
    CallSpan c{};
    bool has_r = ranges.next(r), has_c = calls.next(c);
    GapExplainer explainer;
    std::vector<uint64_t> idle(timeline_.steps.size(), 0);
    FoundGap found;
    ExplainedGap gap;
    while (gap_cursor.next(found)) {
      gap.start_ns = found.start_ns;
      gap.end_ns = found.end_ns;
      for (; has_r && r.start_ns < gap.end_ns; has_r = ranges.next(r))
        explainer.add_range({r.start_ns, r.end_ns, range_name(static_cast<int32_t>(r.name)), r.tid},
                            gap.start_ns);
      for (; has_c && c.start_ns < gap.end_ns; has_c = calls.next(c))
        explainer.add_call({c.start_ns, c.end_ns, c.api}, gap.start_ns);
      explainer.explain(gap);
      tally.add_gap(timeline_, found.device, gap, found.order);
      add_to_steps(timeline_.steps, gap.start_ns, gap.end_ns, idle);
    }
    add_step_shares(timeline_.steps, idle, static_cast<uint32_t>(extent_.size()), tally);
  }

  const Scope& scope_;
  Timeline& timeline_;
  FileScan& scan_;
  analysis::GpuCounts& counts_;
  const GpuIdleTally& idle_rules_;
  Tallies* tallies_ = nullptr;  // feed()'s
  WindowedGpu windowed_;
  std::vector<size_t> step_pattern_;
  std::vector<bool> in_range_;
  std::vector<bool> loads_data_;
  analysis::SpillSorter<CallRecord, ByCorrelation> by_correlation_{
      scan_.sort().make<CallRecord, ByCorrelation>()};
  analysis::SpillSorter<CallSpan, SpanByStart> by_start_{
      scan_.sort().make<CallSpan, SpanByStart>()};
  analysis::SpillSorter<PairedCall, ByThreadStart> by_thread_{
      scan_.sort().make<PairedCall, ByThreadStart>()};
  analysis::SpillSorter<GpuRecordRow, ByStart> work_{scan_.sort().make<GpuRecordRow, ByStart>()};
  analysis::SpillSorter<GpuRecordRow, ByDeviceCallStart> questions_{
      scan_.sort().make<GpuRecordRow, ByDeviceCallStart>()};
  analysis::SpillSorter<KernelEnd, ByDeviceEnd> kernel_ends_{
      scan_.sort().make<KernelEnd, ByDeviceEnd>()};
  analysis::SpillSorter<Busy, ByDeviceTime> busy_{scan_.sort().make<Busy, ByDeviceTime>()};
  std::map<uint32_t, uint64_t> kernels_;  // in busy_, by device: StartupFinder's count
  // find_setup()'s answers, by device with work in scope: (first start, last
  // end) and the end of its start-up (0: none).
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> extent_;
  std::map<uint32_t, uint64_t> startup_ends_;
  std::map<uint32_t, FirstRuns> first_runs_;           // without --range, by device
  std::unordered_map<uint32_t, uint64_t> last_issue_;  // tid -> start of its last issuing call
  PairedCall owner_;                                   // the call pair() is pairing
  std::vector<uint32_t> devices_;
};

}  // namespace

Tallies::Tallies(const Thresholds& thresholds)
    : launch_bound(thresholds),
      small_memcpy(thresholds),
      gpu_idle(thresholds),
      straggler(thresholds) {}

void Tallies::add_timeline(const Timeline& timeline) {
  each([&](auto& tally) { findings::add_timeline(timeline, tally); });
}

std::optional<Finding> Tallies::finish(std::string_view rule, const RuleContext& context) {
  std::optional<Finding> found;
  each([&](auto& tally) {
    if (tally.kRule == rule) found = tally.finish(context);
  });
  return found;
}

struct PreparedFile::Parts {
  Parts(const Scope& scope, Timeline& timeline, analysis::FileInfo& info)
      : full(scope), scan(info, timeline.names) {
    if (full.steps.empty()) full.steps = analysis::default_step_patterns();
    if (full.data.empty()) full.data = default_data_patterns();
  }
  Scope full;
  FileScan scan;
  std::optional<FileJoin> join;
};

PreparedFile::PreparedFile() = default;
PreparedFile::~PreparedFile() = default;

void PreparedFile::feed(Tallies& tallies) {
  parts_->join->feed(tallies);
  parts_.reset();  // the sorts and their temporary files
}

std::unique_ptr<PreparedFile> prepare_file(uint32_t index, const std::string& path,
                                           const Scope& scope, const GpuIdleTally& rules,
                                           Timeline& timeline, analysis::FileInfo& info,
                                           std::string& why) {
  info = analysis::FileInfo{};
  info.path = path;
  timeline = Timeline{};
  timeline.file = index;
  timeline.path = path;
  auto prepared = std::unique_ptr<PreparedFile>(new PreparedFile());
  prepared->parts_ = std::make_unique<PreparedFile::Parts>(scope, timeline, info);
  FileScan& scan = prepared->parts_->scan;
  info.status = read_file(path, scan);
  if (!scan.finish()) {
    why = scan.why();
    return nullptr;
  }
  if (info.header) {
    timeline.pid = info.header->pid();
    timeline.rank = info.header->rank();
  }
  for (const auto& [tid, name] : info.thread_names) timeline.thread_names.emplace_back(tid, name);
  FileJoin& join =
      prepared->parts_->join.emplace(prepared->parts_->full, timeline, scan, info, rules);
  join.prepare();
  return prepared;
}

}  // namespace gprof::findings::stream
