#include "collector/cupti_status.h"

#include <cstdarg>
#include <cstdio>

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
  f.attach = attach_;
  f.buffer_bytes = buffer_bytes_;
  f.buffer_count = buffer_count_;
  encode_cupti_status(frame, f);
  return true;
}

}  // namespace gprof
