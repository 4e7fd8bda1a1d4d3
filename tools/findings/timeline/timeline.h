// What the analyze rules look at: one file's API calls, NVTX ranges and GPU
// work as flat tables, each call placed in its innermost range, its step and
// the --range scope. The loader hands a file's records out once; the rules
// need to look at them together (a copy and the kernel before it, a gap and
// the calls around it), so a file is kept whole while the rules run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/api_ids.h"
#include "formats/record.h"
#include "tools/analysis/model/nvtx_ranges.h"

namespace gprof::findings {

inline constexpr int32_t kNone = -1;

struct Call {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t stream = 0;  // the handle the call was given
  uint64_t bytes = 0;
  uint32_t tid = 0;
  ApiId api = ApiId::kUnknown;
  ApiCategory category = ApiCategory::kOther;
  uint8_t copy_kind = 0;  // cudaMemcpyKind
  bool async = false;     // the display name ends in "Async" (or is a launch)
  int32_t range = kNone;  // innermost enclosing range on its thread (Timeline::ranges)
  int32_t step = kNone;   // Timeline::steps
  bool in_scope = true;   // inside a --range range (always, without --range)
  uint32_t work = 0;      // GPU work records it issued
  uint64_t duration() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct Span {
  std::string name;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t tid = 0;
  analysis::RangeKind kind = analysis::RangeKind::kPushPop;
  uint64_t duration() const { return end_ns - start_ns; }
};

struct Work {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t device = 0;
  uint32_t stream = 0;   // CUPTI's stream id
  int32_t call = kNone;  // Timeline::calls
  uint32_t name = 0;     // Timeline::names
  GpuKind kind = GpuKind::kKernel;
  uint8_t copy_kind = 0;  // CUpti_ActivityMemcpyKind
  uint8_t src_kind = 0;   // CUpti_ActivityMemoryKind
  uint8_t dst_kind = 0;
  uint64_t duration() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct Step {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  int32_t range = kNone;
};

struct Timeline {
  uint32_t file = 0;  // its position among the timelines built
  std::string path;
  std::string rank;  // the header's rank label; empty when none
  uint32_t pid = 0;
  std::vector<Call> calls;  // by ApiCall::index
  std::vector<Span> ranges;
  std::vector<Work> work;          // kernels, copies and sets; by start time
  std::vector<std::string> names;  // Work::name: row names ("Memcpy HtoD (Pageable -> Device)")
  std::vector<Step> steps;         // by start time
  std::string step_pattern;        // the --step pattern that matched; empty without steps
  // The time the rules measure shares against: the span of the calls and GPU
  // work in scope, or with --range the total length of the matching ranges.
  std::vector<std::pair<uint64_t, uint64_t>> windows;
  bool ranged = false;  // the windows are --range's ranges
  // Without --range, where the run's setup ends (0: none): the first step's
  // start, or without steps the earliest end of a device's start-up, and
  // at least the window's start (rule_tallies.h file_setup_end). Imports, model building and module
  // loading took 5.6 s of a 5.8 s torch run on an H200, and hid the loop's
  // launch-bound at 0.5%. The rules but gpu-idle (which shows it apart)
  // leave the setup's calls, and the work they issued, out (counted()), and
  // measure their shares against the window less it (counted_window_ns()).
  uint64_t setup_end_ns = 0;
  bool setup_found = false;  // setup_end_ns is set (the stream, or analyze())
  // When a range that loads data (Scope::data) was open, on any thread;
  // sorted and joined.
  std::vector<std::pair<uint64_t, uint64_t>> data_loading;
  std::vector<std::pair<uint32_t, std::string>> thread_names;

  uint64_t window_ns() const;
  // Whether GPU work `w` is in scope: issued by a call in scope.
  bool in_scope(const Work& w) const {
    return w.call == kNone ? windows_cover(w.start_ns) : calls[w.call].in_scope;
  }
  bool windows_cover(uint64_t time_ns) const;
  // Whether the rules count an event: in scope and after the setup.
  bool counted(const Call& call) const { return call.in_scope && call.start_ns >= setup_end_ns; }
  bool counted(const Work& w) const {
    return w.call == kNone ? counted_without_call(w.start_ns) : counted(calls[w.call]);
  }
  // GPU work no recorded call issued, by its start.
  bool counted_without_call(uint64_t start_ns) const {
    return windows_cover(start_ns) && start_ns >= setup_end_ns;
  }
  // The part of the windows before setup_end_ns, and the rest.
  uint64_t setup_ns() const;
  uint64_t counted_window_ns() const { return window_ns() - setup_ns(); }
  const std::string* thread_name(uint32_t tid) const;
};

// Whether calls of this category may issue GPU work (launches, copies, sets).
inline bool issues_work(ApiCategory category) {
  return category == ApiCategory::kLaunch || category == ApiCategory::kCopy ||
         category == ApiCategory::kSet;
}

// Where a file's window begins without --range: at its first GPU work or call
// that may issue some, so that CUDA's start-up (a first cudaMalloc that ran
// cuInit: 120 ms on an H100, against a few ms of work in a small program) is
// not part of it; at its first call when it issued no work.
inline uint64_t window_begin(uint64_t first_call, uint64_t first_work) {
  return first_work != UINT64_MAX ? first_work : first_call;
}

// Intervals sorted and joined where they touch or overlap: a timeline's
// windows from the ranges --range matched.
std::vector<std::pair<uint64_t, uint64_t>> merged_windows(
    std::vector<std::pair<uint64_t, uint64_t>> intervals);

// "file.gprof" or "rank 3" for messages: the rank when the file has one.
std::string file_label(const Timeline& timeline);

}  // namespace gprof::findings
