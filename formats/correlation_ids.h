// The two kinds of id an API record's `correlation` holds. CUPTI's own are
// 32-bit (CUpti_ActivityKernel9::correlationId in cupti_activity.h) and
// wrap; the ids gprof pushes around its calls while another tool holds
// CUPTI's subscriber (cuptiActivityPushExternalCorrelationId, 64-bit) start
// at kPushedIdBase, above any CUPTI id even unwrapped (2^40: 256 wraps of
// 2^32 calls), so that a file can hold both and a reader can tell them
// apart. Files from before this (gprof 94080cb..) pushed ids from 1, which
// the readers can only keep apart by reading such a file in one mode.
#pragma once

#include <cstdint>

namespace gprof {

inline constexpr uint64_t kPushedIdBase = uint64_t{1} << 40;

inline bool is_pushed_id(uint64_t id) {
  return id >= kPushedIdBase;
}

}  // namespace gprof
