#include "collector/gpu/cupti_status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace gprof {

void CuptiStatus::set_state(CuptiState state) {
  state_ = state;
}

void CuptiStatus::set_reason(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(reason_, sizeof reason_, format, args);
  va_end(args);
}

void CuptiStatus::set_library(const char* path, uint32_t version) {
  snprintf(library_, sizeof library_, "%s", path ? path : "");
  cupti_version_ = version;
}

void CuptiStatus::set_clock(bool aligned, int64_t offset_ns, uint64_t uncertainty_ns) {
  aligned_ = aligned;
  offset_ns_ = offset_ns;
  uncertainty_ns_ = uncertainty_ns;
}

void CuptiStatus::set_attach(const char* how) {
  attach_ = how ? how : "";
}

void CuptiStatus::set_injection(const char* value) {
  snprintf(injection_, sizeof injection_, "%s", value ? value : "");
}

void CuptiStatus::set_buffers(uint32_t count, uint64_t bytes) {
  buffer_count_ = count;
  buffer_bytes_ = bytes;
}

void CuptiStatus::add_kind(const char* name) {
  if (kind_count_ < kMaxKinds) kinds_[kind_count_++] = name;
}

bool CuptiStatus::open_gap(uint64_t start_ns, const char* reason, uint64_t gpu_records,
                           bool clock_replaced) {
  if (gap_count_ == kMaxGaps) {
    ++gaps_not_kept_;
    gap_open_ = false;
    return false;
  }
  Gap& gap = gaps_[gap_count_++];
  gap = Gap{};
  snprintf(gap.reason, sizeof gap.reason, "%s", reason);
  gap.start_ns = start_ns;
  gap.gpu_records_before = gpu_records;
  gap.gpu_records_at_end = gpu_records;
  gap.clock_replaced = clock_replaced;
  gap_open_ = true;
  return true;
}

void CuptiStatus::close_gap(uint64_t end_ns, uint64_t gpu_records, const char* how) {
  if (!gap_open_ || gap_count_ == 0) return;
  Gap& gap = gaps_[gap_count_ - 1];
  gap.end_ns = end_ns;
  gap.gpu_records_at_end = gpu_records;
  const size_t used = strlen(gap.reason);
  snprintf(gap.reason + used, sizeof gap.reason - used, "; %s", how);
  gap_open_ = end_ns == 0;
}

void CuptiStatus::window_changed(uint64_t ns, bool open) {
  windows_recorded_ = true;
  const bool is_open = window_count_ != 0 && windows_[2 * window_count_ - 1] == 0;
  if (open == is_open) return;
  if (!open) {
    if (window_count_ != 0) windows_[2 * window_count_ - 1] = ns;
    return;
  }
  if (window_count_ == kMaxWindows) {
    ++windows_not_kept_;
    return;
  }
  windows_[2 * window_count_] = ns;
  windows_[2 * window_count_ + 1] = 0;
  ++window_count_;
}

bool CuptiStatus::encode_if_changed(ByteBuffer& frame, uint32_t& seen) const {
  const uint32_t version = version_.load(std::memory_order_acquire);
  if (version == seen) return false;
  seen = version;
  CuptiStatusFields f;
  f.state = state_;
  f.version = cupti_version_;
  f.library = library_;
  f.timestamps_aligned = aligned_;
  f.clock_offset_ns = offset_ns_;
  f.offset_uncertainty_ns = uncertainty_ns_;
  f.reason = reason_;
  f.activity_kinds = kinds_;
  f.activity_kind_count = kind_count_;
  f.injection = injection_;
  f.attach = attach_ ? attach_ : "";
  f.buffer_bytes = buffer_bytes_;
  f.buffer_count = buffer_count_;
  CuptiGapFields gaps[kMaxGaps];
  for (size_t i = 0; i < gap_count_; ++i) {
    const Gap& g = gaps_[i];
    gaps[i].start_ns = g.start_ns;
    gaps[i].end_ns = g.end_ns;
    gaps[i].reason = g.reason;
    gaps[i].gpu_records_before = g.gpu_records_before;
    gaps[i].gpu_records_at_end = g.gpu_records_at_end;
    gaps[i].clock_replaced = g.clock_replaced;
  }
  f.gaps = gaps;
  f.gap_count = gap_count_;
  f.gaps_not_kept = gaps_not_kept_;
  f.windows = windows_;
  f.window_count = window_count_;
  f.windows_not_kept = windows_not_kept_;
  f.windows_recorded = windows_recorded_;
  encode_cupti_status(frame, f);
  return true;
}

}  // namespace gprof
