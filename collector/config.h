// Configuration from the environment (read with secure_getenv). A bad value
// gets one warning and the default; it never stops the host program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "collector/log.h"

namespace gprof {

enum class ForkPolicy { kFollow, kStop };

struct Config {
  static constexpr size_t kMaxPattern = 512;

  bool enabled = true;
  char output_pattern[kMaxPattern] = "gprof-%p.gprof";
  size_t ring_bytes = 2u << 20;  // per thread
  uint32_t max_threads = 32;
  LogLevel log_level = LogLevel::kWarn;
  uint32_t file_mode = 0600;
  ForkPolicy fork_policy = ForkPolicy::kFollow;
  uint32_t flush_timeout_ms = 2000;
  uint32_t flush_interval_ms = 20;
  // GPU activity through CUPTI (DESIGN.md §3); off: CPU-side recording only.
  bool cupti = true;
  uint32_t cupti_buffers = 16;
  size_t cupti_buffer_bytes = 1u << 20;
};

// `getenv` is injectable for tests; production passes secure_getenv.
using GetEnv = char* (*)(const char*);
Config load_config(GetEnv getenv_fn);

// Parsers used by load_config; nullopt means "invalid".
std::optional<bool> parse_bool(std::string_view text);
std::optional<uint64_t> parse_size(std::string_view text);  // 4096, 64K, 1M, 1G
std::optional<uint64_t> parse_uint(std::string_view text);
std::optional<LogLevel> parse_log_level(std::string_view text);
std::optional<uint32_t> parse_file_mode(std::string_view text);  // 0600 or 0644 only
std::optional<ForkPolicy> parse_fork_policy(std::string_view text);

}  // namespace gprof
