// The failure modes and knobs of the fake CUPTI, read once from the environment (see
// test/fakes/README.md): GPROF_FAKE_CUPTI, a comma-separated list of modes, and
// GPROF_FAKE_CUPTI_CLOCK_OFFSET_NS.
#pragma once

#include <cstdint>

namespace gprof_fake_cupti {

struct Config {
  bool no_driver = false;                // every call that needs the driver: NOT_INITIALIZED
  bool subscriber_taken = false;         // another tool holds the callback subscriber
  bool activity_in_use = false;          // another tool registered the activity buffers
  bool insufficient_privileges = false;  // kernel/memcpy/memset kinds cannot be enabled
  bool out_of_order = false;             // completed buffers are delivered newest first
  bool no_timestamp_callback = false;    // cuptiActivityRegisterTimestampCallback unsupported
  uint64_t drop_every = 0;               // drop every Nth activity record (0: none)
  uint64_t zero_timestamps_every = 0;    // every Nth kernel record has start = end = 0
  uint64_t buffer_records = 0;           // complete a buffer after N records (0: when full)
  uint64_t exit_without_enter = 0;       // every Nth runtime call: EXIT callback only (0: none)
  bool has_version = false;              // version=N: what cuptiGetVersion reports
  uint32_t version = 0;
  // CUPTI's clock without a timestamp callback: CLOCK_MONOTONIC + this (5000 s by default), so
  // that a profiler that forgets to convert is visibly wrong.
  int64_t clock_offset_ns = 0;  // CUPTI's clock - CLOCK_MONOTONIC (config.cc)
};

// Parsed on first use. Unknown or malformed words are ignored, each with one line on stderr.
const Config& GetConfig();

}  // namespace gprof_fake_cupti
