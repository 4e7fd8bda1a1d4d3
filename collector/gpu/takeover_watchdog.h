// Notices that gprof's GPU records have stopped when it cannot see why
// (docs/architecture.md §3.4): another tool reached CUPTI through a handle of its own
// (dlopen + dlsym, which interposition never sees), or gprof itself was not
// preloaded (CUDA_INJECTION64_PATH only, dlopen). That tool's buffer callbacks
// replaced gprof's, or it disabled gprof's kinds: either way no record comes
// back to gprof while the program goes on launching.
//
// Writer thread only; plain counters. The evidence it asks for, all of it:
//   - at least kMinLaunches calls that issue GPU work (launches, copies, sets)
//     since the last GPU record gprof received, made while gprof's kinds were
//     meant to be on;
//   - a synchronizing call that returned after the first of them: the program
//     waited for the device, so those kernels are done (a device-wide wait),
//     and the wait itself makes a SYNCHRONIZATION record, complete when it
//     returns (cupti_activity.h, CUpti_ActivitySynchronization);
//   - since that wait's return, kMinFlushes cuptiActivityFlushAll calls of
//     gprof's, and kSettleNs, with no GPU record at all.
// A program that launches nothing, whose kernels are still running (no wait
// returned), or that launches a few times between flushes is never flagged.
#pragma once

#include <cstdint>

namespace gprof {

class TakeoverWatchdog {
 public:
  static constexpr uint64_t kMinLaunches = 8;
  static constexpr uint32_t kMinFlushes = 3;
  static constexpr uint64_t kSettleNs = 1'000'000'000;

  // Calls the writer drained in one pass: `launches` issuing GPU work, the
  // first of them starting at `first_launch_ns`; the latest return of a wait
  // for the whole device (`device_wait_end_ns`) and of any host wait (a
  // stream or event synchronize: `wait_end_ns`), 0 for none.
  struct Calls {
    uint64_t launches = 0;
    uint64_t first_launch_ns = 0;
    uint64_t wait_end_ns = 0;
    uint64_t device_wait_end_ns = 0;
  };

  // `sync_records`: CUPTI makes SYNCHRONIZATION records for gprof, so any
  // host wait proves a record is due; otherwise only a device-wide wait does.
  void expect(bool sync_records) { sync_records_ = sync_records; }
  void calls(const Calls& c);
  // GPU records gprof received (any number; 0 is not news).
  void records(uint64_t count);
  // One of gprof's flushes returned.
  void flushed();
  // Start again from nothing: records are not expected (kinds off) or were
  // just turned on again.
  void reset();
  // Whether the evidence is all there at `now_ns`.
  bool stopped(uint64_t now_ns) const;
  // The first launch that got no GPU record: where the interval starts.
  uint64_t since_ns() const { return first_launch_ns_; }
  uint64_t launches() const { return launches_; }

 private:
  bool sync_records_ = true;
  uint64_t launches_ = 0;
  uint64_t first_launch_ns_ = 0;
  uint64_t wait_end_ns_ = 0;  // a wait that returned after first_launch_ns_
  uint32_t flushes_ = 0;      // since wait_end_ns_
};

}  // namespace gprof
