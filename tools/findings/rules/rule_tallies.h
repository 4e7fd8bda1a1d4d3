// What each rule adds up as it is shown the events of the files, and the
// finding it makes of the sums. The rules' functions (rule_*.cc) feed them
// from in-memory timelines; streamed_analysis.h feeds the same tallies
// from a file read as a stream, so that both give the same findings. Each
// tally is defined in its rule's file.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/read/spill_sorter.h"
#include "tools/findings/finding.h"
#include "tools/findings/rules/comm_compute.h"
#include "tools/findings/rules/gpu_gaps.h"
#include "tools/findings/rules/median_values.h"
#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/where_builder.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

class ExcessiveSyncTally {
 public:
  static constexpr std::string_view kRule = "excessive-sync";
  // A call: `work` the first GPU record it issued (nullptr: none);
  // `last_issue` the start of its thread's last call that issued GPU work
  // (nullptr: none did).
  void add(const Timeline& timeline, const Call& call, const CallPlace& place, const Work* work,
           const uint64_t* last_issue);
  void end_file(const Timeline& timeline);
  std::optional<Finding> finish(const RuleContext& context);

 private:
  uint64_t count_ = 0, blocked_ns_ = 0, busiest_ns_ = 0;
  std::map<std::string_view, std::pair<uint64_t, uint64_t>> by_api_;  // name -> (calls, ns)
  std::map<uint32_t, uint64_t> by_thread_;                            // this file's
  std::map<std::pair<int32_t, uint32_t>, uint64_t> by_step_thread_;   // this file's
  std::vector<uint64_t> step_shares_;  // each step's busiest thread's blocked share, ppm
  uint64_t step_blocked_ns_ = 0;       // the busiest thread's of each step, summed
  WhereBuilder where_;
};

class LaunchBoundTally {
 public:
  static constexpr std::string_view kRule = "launch-bound";
  explicit LaunchBoundTally(const Thresholds& thresholds);
  // A thread's kernel launches in scope that issued GPU work, by start (then
  // file order); end_thread() after each thread.
  void launch(const Timeline& timeline, const Call& call, const CallPlace& place, uint64_t gpu_ns,
              const Work* first);
  void end_thread() {
    previous_.reset();
    last_phase_ = nullptr;  // range names are compared by address within a thread only
    phase_of_.clear();
  }
  std::optional<Finding> finish(const RuleContext& context);

 private:
  struct Launch {
    const Timeline* timeline;
    Call call;
    CallPlace place;
    uint64_t gpu_ns;
    std::optional<Work> first;
  };
  // A phase: the launches made in one innermost range (the empty name: in
  // none), each interval charged to the range of the launch it follows.
  struct Phase {
    uint64_t launches = 0, kernel_ns = 0, intervals = 0;
    uint64_t short_count = 0, idle_ns = 0, busy_ns = 0, span_ns = 0;
    WhereBuilder where;
  };
  // The GPU's idle time after a short launch, as a span on its device's
  // timeline (from the end of the launch's work, as long as the wait for the
  // next launch): threads launching onto one GPU at once wait during the
  // same time, which a sum counts twice (an H200 emit_nvtx run: 34.6 ms of
  // idle time in a 23.2 ms window). The idle time is their union.
  struct IdleSpan {
    uint64_t file_device;  // file << 32 | device
    uint64_t start_ns;
    uint64_t end_ns;
  };
  struct ByDeviceStart {
    bool operator()(const IdleSpan& a, const IdleSpan& b) const {
      return a.file_device != b.file_device ? a.file_device < b.file_device
                                            : a.start_ns < b.start_ns;
    }
  };
  uint64_t union_of_idle_spans();
  analysis::SpillSorter<IdleSpan, ByDeviceStart> idle_spans_{(size_t{4} << 20) / sizeof(IdleSpan)};
  uint64_t max_interval_;
  std::optional<Launch> previous_;
  MedianValues kernel_ns_, intervals_;
  uint64_t launches_ = 0, short_count_ = 0, busy_ns_ = 0, span_ns_ = 0;
  WhereBuilder where_;
  std::map<std::string, Phase> phases_;
  // phases_' entry of a range name by its address (a launch and the one
  // before it are often in two ranges, which one cached entry missed on
  // each: a map by text and a string made each time were 9% of analyze).
  const std::string* last_range_ = nullptr;
  Phase* last_phase_ = nullptr;
  std::unordered_map<const std::string*, Phase*> phase_of_;
  Phase& phase(const std::string* range);
  std::optional<Finding> phase_finding(const RuleContext& context);
};

class MemcpyDtohSyncTally {
 public:
  static constexpr std::string_view kRule = "memcpy-dtoh-sync";
  // Whether GPU record `work` of `call` needs the kernel question: a
  // blocking device-to-host copy, the first record its call issued
  // (`first`), that began after the call did, of a call the rules count.
  static bool candidate(const Timeline& timeline, const Call& call, const Work& work, bool first);
  // A candidate during which a kernel on its device ended (between the
  // call's start and the copy's).
  void add(const Timeline& timeline, const Call& call, const CallPlace& place, const Work& work);
  std::optional<Finding> finish(const RuleContext& context);

 private:
  MedianValues sizes_;
  uint64_t blocked_ns_ = 0, wait_ns_ = 0;
  WhereBuilder where_;
};

// GPU work of a file by start (Timeline::work's order), with the call that
// issued it (nullptr: none), whether it is in scope (Timeline::in_scope:
// the GPU was busy with it) and whether the rules count it (Timeline::
// counted: not the setup's). Setup work still running beside a collective
// is compute beside it.
struct WorkEvent {
  const Work& work;
  const Call* call;
  const CallPlace* place;
  bool in_scope;
  bool counted;
};

// The in-memory path of a tally that takes WorkEvents: one file's work in
// Timeline::work's order, as the stream feeds it (streamed_file.cc).
template <typename Tally>
void add_work(const Timeline& timeline, Tally& tally) {
  for (const Work& w : timeline.work) {
    const Call* call = w.call == kNone ? nullptr : &timeline.calls[w.call];
    const CallPlace place = call ? place_of(timeline, *call) : CallPlace{};
    tally.add(timeline, WorkEvent{w, call, call ? &place : nullptr, timeline.in_scope(w),
                                  timeline.counted(w)});
  }
}

// exposed-comm: per device, collectives' time with no compute kernel beside
// it, charged to the collective that opened each stretch.
class ExposedCommTally {
 public:
  static constexpr std::string_view kRule = "exposed-comm";
  void begin_file(const Timeline& timeline);
  void add(const Timeline& timeline, const WorkEvent& event);
  void end_file(const Timeline& timeline);
  std::optional<Finding> finish(const RuleContext& context);

 private:
  // A collective of a stretch not settled yet: what its exposed time is
  // charged to.
  struct Collective {
    uint64_t tag;
    Work work;
    CallPlace place;
    bool has_call;
  };
  struct Device {
    CommComputeSweep sweep;
    std::deque<Collective> unsettled;
  };
  void drain(const Timeline& timeline, Device& device);

  std::map<uint32_t, Device> devices_;  // this file's
  Device* last_device_ = nullptr;       // devices_' entry of last_device_id_
  uint32_t last_device_id_ = 0;
  CollectiveNames collective_;
  uint64_t next_tag_ = 0;
  uint64_t collectives_ = 0, communication_ns_ = 0, exposed_ns_ = 0;
  WhereBuilder where_;
};

// straggler: each file (rank) by step, its time split into GPU compute,
// communication with no compute beside it, data loading while the GPU was
// idle, and the rest (the CPU's); compared across the files.
class StragglerTally {
 public:
  static constexpr std::string_view kRule = "straggler";
  explicit StragglerTally(const Thresholds& thresholds);
  void begin_file(const Timeline& timeline);
  void add(const Timeline& timeline, const WorkEvent& event);
  void end_file(const Timeline& timeline);
  std::optional<Finding> finish(const RuleContext& context);

  // A rank's medians over its steps.
  struct Rank {
    std::string label;  // file_label
    uint64_t steps = 0;
    double step_ns = 0, own_ns = 0, own_spread_ns = 0;  // own: without exposed communication
    double data_ns = 0, cpu_ns = 0, gpu_ns = 0, comm_ns = 0;
  };

 private:
  void take();

  double min_excess_;
  CollectiveNames collective_;
  CommComputeSweep sweep_;  // the file's devices together
  // This file's steps and, per step, its GPU time, exposed communication
  // and data loading while the GPU was busy.
  const std::vector<Step>* steps_ = nullptr;
  std::vector<uint64_t> gpu_ns_, comm_ns_, data_busy_ns_;
  const std::vector<std::pair<uint64_t, uint64_t>>* loading_ = nullptr;
  size_t next_loading_ = 0;
  std::vector<Rank> ranks_;
};

class PageableMemcpyTally {
 public:
  static constexpr std::string_view kRule = "pageable-memcpy";
  void begin_file() { last_call_ = kNone; }
  void add(const Timeline& timeline, const WorkEvent& event);
  std::optional<Finding> finish(const RuleContext& context);

 private:
  int32_t last_call_ = kNone;
  uint64_t copies_ = 0, bytes_ = 0, gpu_ns_ = 0, cpu_ns_ = 0, to_device_ = 0, to_host_ = 0;
  WhereBuilder where_;
};

class SmallMemcpyTally {
 public:
  static constexpr std::string_view kRule = "small-memcpy";
  explicit SmallMemcpyTally(const Thresholds& thresholds);
  void begin_file() { last_call_ = kNone; }
  void add(const Timeline& timeline, const WorkEvent& event);
  std::optional<Finding> finish(const RuleContext& context);

 private:
  double max_bytes_;
  int32_t last_call_ = kNone;
  MedianValues sizes_;
  uint64_t bytes_ = 0, gpu_ns_ = 0, cpu_ns_ = 0, impact_ns_ = 0;
  WhereBuilder where_;
};

class GpuIdleTally {
 public:
  static constexpr std::string_view kRule = "gpu-idle";
  explicit GpuIdleTally(const Thresholds& thresholds);
  uint64_t min_gap() const { return min_gap_; }
  // Where a device's start-up ends, from its number of kernels (has_startup()).
  StartupFinder startup_finder(uint64_t kernels) const {
    return StartupFinder(kernels, startup_share_, min_gap_);
  }
  void add_window(uint64_t ns) { window_ns_ += ns; }
  // Whether gaps ending at a kernel's first run may be warm-up (FirstRuns):
  // without --range, unless the `warmup_gap` threshold is 0.
  bool finds_warmup(const Timeline& timeline) const { return warmup_gap_ > 0 && !timeline.ranged; }
  // Whether a gap of a device with `first_runs` is warm-up: it ends where a
  // kernel first ran, is no longer than `warmup_gap` (a checkpoint's or an
  // evaluation's stall before new kernels is no module loading), and a
  // data-loading range was open during less than half of it (a loader's
  // stall before a step whose shapes pick new kernels is a stall; an H100
  // program's first launch idled the GPU 15 ms just after its loader's
  // range closed).
  // Such a gap is taken here, left out of the idle time and of the window
  // (its length also added to `device_warmup_ns`, which the caller takes
  // out of the device's window); false: a gap to count.
  bool take_warmup(const Timeline& timeline, const FirstRuns& first_runs, uint64_t start_ns,
                   uint64_t end_ns, uint64_t& device_warmup_ns);
  // A device's time before the first step or its start-up's end
  // (setup_window) and its idle time in gaps of min_gap or more: shown, not
  // counted.
  void add_setup(const Timeline& timeline, uint64_t window_ns, uint64_t idle_ns) {
    setup_window_ns_ += window_ns;
    setup_idle_ns_ += idle_ns;
    (timeline.steps.empty() ? startup_setups_ : step_setups_) += window_ns > 0 ? 1 : 0;
  }
  // An explained gap of `device`; `order`: its place among all the gaps
  // (file, device, time), which breaks ties between equally long ones.
  void add_gap(const Timeline& timeline, uint32_t device, const ExplainedGap& gap, uint64_t order);
  // The next gap's order, counted over the files.
  uint64_t next_order() { return next_order_++; }
  // A step's idle time in gaps, and its length.
  void add_step(uint64_t idle_ns, uint64_t length_ns) {
    step_shares_.add(idle_ns * 1000000 / length_ns);
    step_idle_ns_ += idle_ns;
  }
  std::optional<Finding> finish(const RuleContext& context);

 private:
  std::string window_label() const;
  struct Listed {
    Gap gap;
    uint64_t order;
  };
  uint64_t min_gap_;
  uint64_t next_order_ = 0;
  uint64_t gaps_ = 0, idle_ns_ = 0, window_ns_ = 0;
  double startup_share_;
  uint64_t setup_window_ns_ = 0, setup_idle_ns_ = 0;
  uint32_t step_setups_ = 0, startup_setups_ = 0;  // devices with a setup of each kind
  uint64_t warmup_gap_;
  uint64_t warmup_gaps_ = 0, warmup_idle_ns_ = 0;
  std::vector<Listed> longest_;  // by length, then order
  std::map<std::string_view, uint64_t> by_api_;
  MedianValues step_shares_;  // ppm
  uint64_t step_idle_ns_ = 0;
  WhereBuilder where_;
};

// Whether a device's start-up is looked for (StartupFinder): without
// --range and without steps, which say where the run begins themselves.
bool has_startup(const Timeline& timeline);
// The windows a device's gaps are looked for in: the timeline's, or its one
// window cut to the device's first work and its last and, without --range,
// to the first step's start when the file has steps, else to the end of
// the device's start-up (`startup_end_ns`, 0: none).
std::vector<std::pair<uint64_t, uint64_t>> device_windows(const Timeline& timeline,
                                                          uint64_t first_start_ns,
                                                          uint64_t last_end_ns,
                                                          uint64_t startup_end_ns);
// Without --range: from the device's first work to the first step's start,
// or without steps to its start-up's end. Imports, model building and CUDA's
// start-up keep the GPU idle there (4.1 s before torch's first step on an
// H200, which gpu-idle ranked first), which is not what a step's idle time
// is (issue 32 item 4).
std::optional<std::pair<uint64_t, uint64_t>> setup_window(const Timeline& timeline,
                                                          uint64_t first_start_ns,
                                                          uint64_t last_end_ns,
                                                          uint64_t startup_end_ns);
// Where a file's setup ends (Timeline::setup_end_ns): with --range
// nowhere (the user's window); with steps at the first step's start; else
// at the earliest end of a start-up among the devices with work in scope
// (`startup_ends`, StartupFinder, 0: none), nowhere when one has none; and
// never before the window begins.
uint64_t file_setup_end(const Timeline& timeline, const std::vector<uint64_t>& startup_ends);
// The same for an in-memory timeline, from its work; sets setup_found.
void find_setup(Timeline& timeline, const Thresholds& thresholds);
// Adds the overlap of [start_ns, end_ns) with each step to ns[i]
// (timeline.steps[i]): a gap's idle time, a stretch of work.
void add_to_steps(const std::vector<Step>& steps, uint64_t start_ns, uint64_t end_ns,
                  std::vector<uint64_t>& ns);
// Each step's idle share, from its idle time on `devices` devices (those
// with work in scope, whose gaps add up in `idle`), to the tally.
void add_step_shares(const std::vector<Step>& steps, const std::vector<uint64_t>& idle,
                     uint32_t devices, GpuIdleTally& tally);

// One file of an in-memory timeline into each rule's tally, in the order
// the stream feeds it (streamed_file.cc): each rule's run() calls its own
// over the files, and a streamed analysis one for a file it read in memory
// (load.cc), the others streamed.
void add_timeline(const Timeline& timeline, ExcessiveSyncTally& tally);
void add_timeline(const Timeline& timeline, LaunchBoundTally& tally);
void add_timeline(const Timeline& timeline, MemcpyDtohSyncTally& tally);
void add_timeline(const Timeline& timeline, PageableMemcpyTally& tally);
void add_timeline(const Timeline& timeline, SmallMemcpyTally& tally);
void add_timeline(const Timeline& timeline, GpuIdleTally& tally);
void add_timeline(const Timeline& timeline, StragglerTally& tally);
void add_timeline(const Timeline& timeline, ExposedCommTally& tally);

}  // namespace gprof::findings
