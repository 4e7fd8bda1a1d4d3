// Configuration from the environment (read with secure_getenv). A bad value
// gets one warning and the default; it never stops the host program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "collector/process/log.h"

namespace gprof {

enum class ForkPolicy { kFollow, kStop };
enum class CaptureMode { kAll, kProfilerApi, kNvtx };
// What a thread does when the queues hold GPROF_MAX_MEMORY (docs/architecture.md §2.2).
enum class OnFull { kWait, kDrop };

// Activity kinds a user can ask for (GPROF_CUPTI_KINDS).
inline constexpr uint32_t kCuptiKindKernel = 1u << 0;  // CONCURRENT_KERNEL
inline constexpr uint32_t kCuptiKindMemcpy = 1u << 1;  // MEMCPY, MEMCPY2
inline constexpr uint32_t kCuptiKindMemset = 1u << 2;  // MEMSET
inline constexpr uint32_t kCuptiKindSync = 1u << 3;    // SYNCHRONIZATION
inline constexpr uint32_t kCuptiKindsAll = 0xF;
inline constexpr uint32_t kCuptiCallbacksRuntime = 1u << 0;  // CUPTI_CB_DOMAIN_RUNTIME_API
inline constexpr uint32_t kCuptiCallbacksDriver = 1u << 1;   // CUPTI_CB_DOMAIN_DRIVER_API
inline constexpr uint32_t kCuptiCallbacksAll = 0x3;

struct Config {
  static constexpr size_t kMaxPattern = 512;
  static constexpr size_t kMaxName = 128;

  bool enabled = true;
  char output_pattern[kMaxPattern] = "gprof-%p.gprof";
  // All threads' queues together; more is mapped only as needed.
  size_t max_memory = 256u << 20;
  OnFull on_full = OnFull::kWait;
  uint32_t max_wait_ms = 10000;  // one hold at the cap, at most; then the record is dropped
  bool tsc = true;               // invariant TSC timestamps where the CPU has them
  // Tests: the writer sleeps this long before each pass, as behind a slow disk.
  uint32_t writer_delay_ms = 0;
  LogLevel log_level = LogLevel::kWarn;
  uint32_t file_mode = 0600;
  ForkPolicy fork_policy = ForkPolicy::kFollow;
  uint32_t flush_timeout_ms = 2000;
  uint32_t flush_interval_ms = 20;
  // GPU activity through CUPTI (docs/architecture.md §3.2); off: CPU-side recording only.
  bool cupti = true;
  uint32_t cupti_buffers = 16;
  size_t cupti_buffer_bytes = 1u << 20;
  // GPROF_CUPTI_KINDS: which activity kinds (kCuptiKind* bits); 0 (`none`):
  // API callbacks only. The rungs of the overhead ladder (scripts/gpu_check.py)
  // and a way to pay only for what a user reads.
  uint32_t cupti_kinds = kCuptiKindsAll;
  // CUPTI 13's per-thread activity buffers (GPROF_CUPTI_PER_THREAD_BUFFERS),
  // off by default (collector/gpu/session/setup.cc, request_buffer_mode).
  bool cupti_per_thread_buffers = false;
  // GPROF_CUPTI_ZEROED_BUFFERS: gprof hands CUPTI zeroed buffers, so that it
  // need not zero them on the launching thread (cupti_activity.h,
  // CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER).
  bool cupti_zeroed_buffers = false;
  // GPROF_CUPTI_TIMESTAMP_CALLBACK=0: CUPTI stamps records on its own clock and
  // gprof applies the sampled offset, as when another tool holds CUPTI (the
  // ladder's rung for what the callback costs: the minimal client has none).
  bool cupti_timestamp_callback = true;
  // GPROF_CUPTI_CALLBACKS: the API callbacks gprof enables, by domain
  // (kCuptiCallbacks* bits). Not `all`, calls are left without their CUPTI
  // id and their GPU records without a call: a diagnostic, the ladder's
  // rungs for what the callbacks cost beside activity (the minimal client
  // subscribes to none; with CONCURRENT_KERNEL on, gprof paid 1.1 us a
  // launch more than it on an H200, 2026-11-29).
  uint32_t cupti_callbacks = kCuptiCallbacksAll;
  // Capture windows (collector/process/capture_window.h).
  CaptureMode capture_mode = CaptureMode::kAll;
  char capture_name[kMaxName] = {};    // nvtx:NAME (a trailing * matches a prefix)
  char capture_domain[kMaxName] = {};  // nvtx:NAME@DOMAIN
  char step_name[kMaxName] = {};       // GPROF_STEP_RANGE; empty: ProfilerStep*, step*
  uint64_t delay_ms = 0;
  uint64_t duration_ms = 0;  // 0: to the end
  uint32_t skip_steps = 0;
  uint32_t steps = 0;  // 0: all steps after the skipped ones
  // GPROF_ONLY_PID (gpuprof record --no-children): record only that process.
  bool other_process = false;
};

// `getenv` is injectable for tests; production passes secure_getenv.
// GPROF_CUPTI_KINDS: kernel,memcpy,memset,sync (any order), all, or none.
using GetEnv = char* (*)(const char*);
Config load_config(GetEnv getenv_fn);

// GPROF_MAX_MEMORY is shared: with CUPTI on, its activity buffers may grow to
// a quarter of it (never below GPROF_CUPTI_BUFFERS), the record queues get
// the rest.
inline size_t cupti_memory_cap(const Config& c) {
  return c.cupti ? c.max_memory / 4 : 0;
}
inline size_t queue_memory_cap(const Config& c) {
  return c.max_memory - cupti_memory_cap(c);
}
inline uint32_t cupti_max_buffers(const Config& c) {
  const size_t n = cupti_memory_cap(c) / c.cupti_buffer_bytes;
  return n < c.cupti_buffers ? c.cupti_buffers : static_cast<uint32_t>(n < 256 ? n : 256);
}

// Parsers used by load_config; nullopt means "invalid".
std::optional<bool> parse_bool(std::string_view text);
std::optional<uint64_t> parse_size(std::string_view text);  // 4096, 64K, 1M, 1G
std::optional<uint64_t> parse_uint(std::string_view text);
std::optional<uint32_t> parse_cupti_kinds(std::string_view text);
// GPROF_CUPTI_CALLBACKS: all, runtime, driver or none.
std::optional<uint32_t> parse_cupti_callbacks(std::string_view text);
std::optional<LogLevel> parse_log_level(std::string_view text);
std::optional<uint32_t> parse_file_mode(std::string_view text);  // 0600 or 0644 only
std::optional<ForkPolicy> parse_fork_policy(std::string_view text);
std::optional<OnFull> parse_on_full(std::string_view text);
// "all", "cudaProfilerApi", "nvtx:NAME[@DOMAIN]"; fills the name fields of `c`.
bool parse_capture(std::string_view text, Config& c);
std::optional<uint64_t> parse_seconds_as_ms(std::string_view text);  // 1, 0.5, 30

}  // namespace gprof
