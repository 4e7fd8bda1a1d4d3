// How GPU activity is being captured, for the file (pb::CuptiStatus) and for
// `gpuprof info`. Filled by the preload constructor (the injection variable)
// and by the CUPTI session; encoded by the writer whenever it changes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "formats/write/frame_encoder.h"

namespace gprof {

class CuptiStatus {
 public:
  static constexpr size_t kMaxKinds = 12;
  static constexpr size_t kMaxGaps = 16;
  static constexpr size_t kMaxWindows = 256;

  // Setup side (one thread at a time: the constructor, then InitializeInjection).
  void set_state(CuptiState state);
  void set_reason(const char* format, ...) __attribute__((format(printf, 2, 3)));
  void set_library(const char* path, uint32_t version);
  void set_clock(bool aligned, int64_t offset_ns, uint64_t uncertainty_ns);
  void set_injection(const char* value);
  void set_attach(const char* how);  // a static string: "injection", "late"
  void set_buffers(uint32_t count, uint64_t bytes);
  void add_kind(const char* name);  // a static string
  // Writer side (the writer thread notices a takeover and resumes): an
  // interval without GPU records begins; returns false when kMaxGaps are
  // kept already (counted). `reason` is copied.
  bool open_gap(uint64_t start_ns, const char* reason, uint64_t gpu_records, bool clock_replaced);
  // The open interval ends at `end_ns` (0: still open at the end), with
  // `how` appended to its reason.
  void close_gap(uint64_t end_ns, uint64_t gpu_records, const char* how);
  // Writer side: the capture window opened or closed at `ns` (in order).
  void window_changed(uint64_t ns, bool open);
  // Makes the changes visible to the writer.
  void publish() { version_.fetch_add(1, std::memory_order_release); }

  CuptiState state() const { return state_; }
  int64_t clock_offset_ns() const { return offset_ns_; }

  // Writer side: encodes the status into `frame` when it changed since the
  // last call (`seen` holds the version last encoded). False when unchanged.
  bool encode_if_changed(ByteBuffer& frame, uint32_t& seen) const;

 private:
  std::atomic<uint32_t> version_{0};
  CuptiState state_ = CuptiState::kNotStarted;
  uint32_t cupti_version_ = 0;
  bool aligned_ = false;
  int64_t offset_ns_ = 0;
  uint64_t uncertainty_ns_ = 0;
  uint64_t buffer_bytes_ = 0;
  uint32_t buffer_count_ = 0;
  const char* kinds_[kMaxKinds] = {};
  size_t kind_count_ = 0;
  char library_[512] = {};
  char reason_[512] = {};
  char injection_[512] = {};
  const char* attach_ = nullptr;  // no pointer defaults: ProcessState stays in .bss
  struct Gap {
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t gpu_records_before;
    uint64_t gpu_records_at_end;
    bool clock_replaced;
    char reason[256];
  };
  Gap gaps_[kMaxGaps] = {};
  size_t gap_count_ = 0;
  uint32_t gaps_not_kept_ = 0;
  bool gap_open_ = false;
  uint64_t windows_[2 * kMaxWindows] = {};  // (open, close) pairs
  size_t window_count_ = 0;
  uint32_t windows_not_kept_ = 0;
  bool windows_recorded_ = false;
};

}  // namespace gprof
