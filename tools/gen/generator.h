// The generator of one rank's file (workload.h): its threads, the units of
// work they do, and the state of the run it writes.
//   generator.cc         the run's events: ops, launches, copies, steps;
//   generator_output.cc  frames, header, capture windows, takeovers, lag.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/correlation_ids.h"
#include "formats/record.h"
#include "formats/write/frame_encoder.h"
#include "tools/gen/rng.h"
#include "tools/gen/training_model.h"
#include "tools/gen/workload.h"

namespace gprof::gen {

enum class Role { kMain, kForward, kBackward, kCopy };

// A thread's encoder of calls or ranges that, with a capture window, writes
// only what is made while one is open (`open`), counting the rest in
// `skipped`. Without (open == nullptr): the encoder itself.
template <typename Encoder, typename Record>
struct Gated {
  Encoder encoder;
  const bool* open = nullptr;
  uint64_t* skipped = nullptr;
  void begin(uint32_t tid) { encoder.begin(tid); }
  void add(const Record& record) {
    if (open != nullptr && !*open) {
      ++*skipped;
      return;
    }
    encoder.add(record);
  }
  size_t count() const { return encoder.count(); }
  void finish(ByteBuffer& frame) { encoder.finish(frame); }
};
// How long CUPTI's kinds stay on after a window closes (Settings::capture_steps).
constexpr uint64_t kKindsOffNs = 50'000;

// A CUPTI activity buffer: GPU records, and the external correlations of
// the calls made while gprof pushed ids (Settings::takeover_steps).
struct ActivityBuffer : GpuActivitiesEncoder {
  ExternalCorrelationsEncoder externals;
};

struct Thread {
  uint32_t tid = 0;
  Role role = Role::kMain;
  uint64_t now = 0;        // CPU time of the thread
  uint64_t gpu_free = 0;   // when its stream's last work ends
  uint64_t comm_free = 0;  // the same of its communication stream (Settings::overlapped_comm)
  uint64_t stream = 0;     // cudaStream_t
  uint32_t cupti_stream = 0;
  uint32_t units = 0;
  Gated<ApiCallsEncoder, ApiRecord> calls;
  Gated<RangesEncoder, RangeEvent> ranges;
  std::deque<GpuRecord> unrecorded;  // while no window is open: its queued work
  std::unique_ptr<ActivityBuffer> buffer = std::make_unique<ActivityBuffer>();
  size_t buffer_capacity = 0;
};

// A piece of work a thread does next, with the records it will write.
struct Unit {
  enum Kind { kOp, kGraph, kStepBegin, kStepEnd, kCopy, kSync, kAllReduce } kind = kOp;
  const OpSpec* op = nullptr;  // kOp
  bool child = false;
  bool empty = false;  // an aten::empty inside the child (no GPU work)
  uint64_t records() const;
};

class Generator {
 public:
  Generator(const Settings& s, std::FILE* out, Counts& counts)
      : s_(s),
        out_(out),
        counts_(counts),
        rng_(s.seed * 0x100000001B3ull + s.rank),
        correlation_(s.first_correlation == 0 ? 1 : s.first_correlation) {}

  bool run(std::string& error);

 private:
  uint32_t nvtx(std::string_view text);
  uint32_t kernel_id(uint32_t k);  // as the API record names it
  uint32_t gpu_kernel_id(uint32_t k);
  void push(Thread& t, uint32_t name, uint64_t seq = 0, uint64_t op_id = 0);
  void pop(Thread& t);
  void mark(Thread& t, uint32_t name);
  void start_end(Thread& t, RangeOp op, uint32_t name, uint64_t range_id);
  ApiRecord call(Thread& t, ApiId api, uint64_t duration);
  void launch(Thread& t, uint32_t k, bool on_comm_stream = false, uint64_t longer_ns = 0);
  void copy(Thread& t, uint8_t cuda_kind, uint64_t bytes);
  void set(Thread& t, uint64_t bytes);
  void sync(Thread& t);
  void graph(Thread& t);
  void gpu(Thread& t, GpuRecord& r, uint64_t issued_at, bool on_comm_stream = false);
  // Kernel `k`'s record for call `a`, lasting `duration_ns` (gpu() places it).
  GpuRecord kernel_record(uint32_t k, const ApiRecord& a, uint64_t duration_ns);
  void work(Thread& t, const Unit& u);
  Unit next_unit(Thread& t);
  uint64_t records_of(const Unit& u) const;
  bool slow() const { return s_.slow_ns != 0 && s_.rank == s_.slow_rank; }
  // How much longer this rank's all-reduce lasts: it waits for the straggler.
  uint64_t all_reduce_wait() const {
    return s_.slow_ns != 0 && s_.slow_rank < s_.ranks && s_.rank != s_.slow_rank ? s_.slow_ns : 0;
  }
  void flush(bool last);
  void write_frame(const ByteBuffer& payload);
  void write_header();
  // Settings::capture_steps.
  bool windowed() const { return !s_.capture_steps.empty(); }
  bool record_gpu(Thread& t, const GpuRecord& r);
  // With windows: whether CUPTI's kinds are on at `ns` (a window is open, or
  // closed less than kKindsOffNs before).
  bool kinds_on(uint64_t ns) const {
    return capturing_ || (closed_at_ != 0 && ns < closed_at_ + kKindsOffNs);
  }
  void step_window(uint64_t now, bool begins);

  const Settings& s_;
  std::FILE* out_;
  Counts& counts_;
  Rng rng_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::vector<std::unique_ptr<ActivityBuffer>> completed_;  // full buffers
  // Full buffers held for Settings::gpu_lag_ns: (when they are delivered, buffer).
  std::deque<std::pair<uint64_t, std::unique_ptr<ActivityBuffer>>> lagging_;
  std::unordered_map<std::string, uint32_t> nvtx_ids_;
  uint32_t next_nvtx_ = 1u << 28;  // as collector/interning/string_table.h numbers them
  uint32_t kernel_ids_[kKernelCount] = {};
  uint32_t gpu_kernel_ids_[kKernelCount] = {};
  uint32_t next_kernel_ = 1, next_gpu_kernel_ = 1u << 24;
  ByteBuffer strings_, frame_;
  uint32_t correlation_;  // the next call's
  uint64_t pending_ = 0;
  uint64_t seq_ = 0, backward_seq_ = 0, op_id_ = 0;
  uint64_t step_ = 0;
  bool in_step_ = false;
  bool reduced_in_step_ = false;  // the step's all-reduce ran in its middle (overlapped_comm)
  bool write_failed_ = false;
  // Settings::capture_steps: whether a window is open, when they opened and
  // closed (CuptiStatus.capture_windows), the records not written.
  bool capturing_ = false;
  std::vector<uint64_t> windows_;
  bool windows_changed_ = false;
  uint64_t closed_at_ = 0;
  Counts skipped_;
  CuptiStatusFields status_;
  bool status_changed_ = false;
  // Settings::takeover_steps: whether another tool holds CUPTI, the last
  // call's ids (pushed, CUPTI's), the gaps. A gap is a time: a call belongs
  // to it by its start, whichever thread made it and when.
  bool taken_ = false;
  uint64_t next_pushed_ = kPushedIdBase;
  uint64_t last_pushed_ = 0, last_cupti_ = 0;
  uint64_t latest_call_ = 0;  // the latest start of a call made so far
  std::vector<CuptiGapFields> gaps_;
  uint64_t gpu_written_ = 0;  // GPU records in the file so far
  void step_takeover(bool begins);
  // The correlation id of the GPU records of call `a` (made just before).
  uint64_t cupti_id(const ApiRecord& a) const {
    return last_pushed_ != 0 && a.correlation == last_pushed_ ? last_cupti_ : a.correlation;
  }
  bool in_gap(uint64_t start_ns) const {
    for (auto gap = gaps_.rbegin(); gap != gaps_.rend(); ++gap) {
      if (start_ns >= gap->start_ns) return gap->end_ns == 0 || start_ns < gap->end_ns;
    }
    return false;
  }
  // Whether CUPTI gives gprof this GPU record of a call made at `call_ns`
  // (not another tool, not outside a window).
  bool keep_gpu(Thread& t, const GpuRecord& r, uint64_t call_ns) {
    if (in_gap(call_ns)) {
      ++skipped_.gpu;
      return false;
    }
    if (windowed() && !record_gpu(t, r)) return false;
    ++gpu_written_;
    return true;
  }
};

}  // namespace gprof::gen
