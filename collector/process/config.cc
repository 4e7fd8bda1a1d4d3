#include "collector/process/config.h"

#include <unistd.h>

#include <cstring>

namespace gprof {
namespace {

std::string_view lower_trim(std::string_view text, char* scratch, size_t size) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  size_t n = text.size() < size ? text.size() : size;
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    scratch[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return {scratch, n};
}

template <typename T, typename Parse>
void apply(GetEnv getenv_fn, const char* name, const char* expected, T& field, Parse parse) {
  const char* raw = getenv_fn(name);
  if (!raw) return;
  auto parsed = parse(std::string_view(raw));
  if (parsed) {
    field = static_cast<T>(*parsed);
  } else {
    GPROF_WARN("ignoring %s='%s' (expected %s); using the default", name, raw, expected);
  }
}

}  // namespace

std::optional<uint64_t> parse_uint(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::optional<bool> parse_bool(std::string_view text) {
  char buf[16];
  std::string_view t = lower_trim(text, buf, sizeof buf);
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::optional<uint64_t> parse_size(std::string_view text) {
  char buf[32];
  std::string_view t = lower_trim(text, buf, sizeof buf);
  if (t.size() >= sizeof buf) return std::nullopt;
  uint64_t scale = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'k':
        scale = 1ull << 10;
        break;
      case 'm':
        scale = 1ull << 20;
        break;
      case 'g':
        scale = 1ull << 30;
        break;
      default:
        break;
    }
    if (scale != 1) t.remove_suffix(1);
  }
  auto n = parse_uint(t);
  if (!n || *n == 0 || *n > (1ull << 40) / scale) return std::nullopt;
  return *n * scale;
}

std::optional<LogLevel> parse_log_level(std::string_view text) {
  char buf[16];
  std::string_view t = lower_trim(text, buf, sizeof buf);
  if (t == "off" || t == "none") return LogLevel::kOff;
  if (t == "error") return LogLevel::kError;
  if (t == "warn" || t == "warning") return LogLevel::kWarn;
  if (t == "info") return LogLevel::kInfo;
  if (t == "debug") return LogLevel::kDebug;
  return std::nullopt;
}

std::optional<uint32_t> parse_file_mode(std::string_view text) {
  if (text == "0600" || text == "600") return 0600u;
  if (text == "0644" || text == "644") return 0644u;
  return std::nullopt;
}

std::optional<ForkPolicy> parse_fork_policy(std::string_view text) {
  char buf[16];
  std::string_view t = lower_trim(text, buf, sizeof buf);
  if (t == "follow") return ForkPolicy::kFollow;
  if (t == "stop") return ForkPolicy::kStop;
  return std::nullopt;
}

std::optional<OnFull> parse_on_full(std::string_view text) {
  char buf[16];
  std::string_view t = lower_trim(text, buf, sizeof buf);
  if (t == "wait") return OnFull::kWait;
  if (t == "drop") return OnFull::kDrop;
  return std::nullopt;
}

std::optional<uint32_t> parse_cupti_kinds(std::string_view text) {
  if (text == "all") return kCuptiKindsAll;
  if (text == "none") return 0u;
  uint32_t kinds = 0;
  for (;;) {
    const size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    if (word == "kernel") {
      kinds |= kCuptiKindKernel;
    } else if (word == "memcpy") {
      kinds |= kCuptiKindMemcpy;
    } else if (word == "memset") {
      kinds |= kCuptiKindMemset;
    } else if (word == "sync") {
      kinds |= kCuptiKindSync;
    } else {
      return std::nullopt;  // an empty word too: "kernel,"
    }
    if (comma == std::string_view::npos) return kinds;
    text.remove_prefix(comma + 1);
  }
}

std::optional<uint32_t> parse_cupti_callbacks(std::string_view text) {
  if (text == "all") return kCuptiCallbacksAll;
  if (text == "runtime") return kCuptiCallbacksRuntime;
  if (text == "driver") return kCuptiCallbacksDriver;
  if (text == "none") return 0u;
  return std::nullopt;
}

bool parse_capture(std::string_view text, Config& c) {
  if (text == "all") {
    c.capture_mode = CaptureMode::kAll;
    return true;
  }
  if (text == "cudaProfilerApi" || text == "cudaprofilerapi") {
    c.capture_mode = CaptureMode::kProfilerApi;
    return true;
  }
  if (text.substr(0, 5) != "nvtx:") return false;
  text.remove_prefix(5);
  std::string_view name = text, domain;
  if (const size_t at = text.find('@'); at != std::string_view::npos) {
    name = text.substr(0, at);
    domain = text.substr(at + 1);
  }
  if (name.empty() || name.size() >= Config::kMaxName || domain.size() >= Config::kMaxName)
    return false;
  c.capture_mode = CaptureMode::kNvtx;
  // string_view::copy, not memcpy: an absent domain is a null data() of
  // size 0, which memcpy may not be given (UBSan found it).
  c.capture_name[name.copy(c.capture_name, name.size())] = '\0';
  c.capture_domain[domain.copy(c.capture_domain, domain.size())] = '\0';
  return true;
}

std::optional<uint64_t> parse_seconds_as_ms(std::string_view text) {
  uint64_t whole = 0, fraction = 0, scale = 1000;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
    if (whole > 1'000'000'000) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (scale > 1) {
        scale /= 10;
        fraction += static_cast<uint64_t>(text[i] - '0') * scale;
      }
    }
  }
  if (i != text.size()) return std::nullopt;
  return whole * 1000 + fraction;
}

Config load_config(GetEnv getenv_fn) {
  Config c;
  // The log level first, so that warnings about the rest obey it.
  apply(getenv_fn, "GPROF_LOG_LEVEL", "off|error|warn|info|debug", c.log_level, parse_log_level);
  set_log_level(c.log_level);
  apply(getenv_fn, "GPROF_ENABLED", "0 or 1", c.enabled, parse_bool);
  if (const char* pattern = getenv_fn("GPROF_OUTPUT")) {
    size_t n = strlen(pattern);
    if (n == 0 || n >= sizeof c.output_pattern) {
      GPROF_WARN("ignoring GPROF_OUTPUT (empty or longer than %zu bytes); using '%s'",
                 sizeof c.output_pattern - 1, c.output_pattern);
    } else {
      memcpy(c.output_pattern, pattern, n + 1);
    }
  }
  auto memory = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_size(t);
    if (!n || *n < (1ull << 20) || *n > (4ull << 30)) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_MAX_MEMORY", "a size from 1M to 4G, e.g. 256M", c.max_memory, memory);
  apply(getenv_fn, "GPROF_ON_FULL", "wait|drop", c.on_full, parse_on_full);
  auto wait_ms = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_uint(t);
    if (!n || *n == 0 || *n > 3600000) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_MAX_WAIT_MS", "1..3600000", c.max_wait_ms, wait_ms);
  apply(getenv_fn, "GPROF_TSC", "0 or 1", c.tsc, parse_bool);
  // Settings of the fixed rings these replaced: said once, not silently ignored.
  for (const char* gone : {"GPROF_BUFFER_SIZE", "GPROF_MAX_THREADS"})
    if (getenv_fn(gone))
      GPROF_WARN("%s is no longer used: queues grow as needed up to GPROF_MAX_MEMORY", gone);
  apply(getenv_fn, "GPROF_FILE_MODE", "0600 or 0644", c.file_mode, parse_file_mode);
  apply(getenv_fn, "GPROF_FORK", "follow|stop", c.fork_policy, parse_fork_policy);
  auto millis = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_uint(t);
    if (!n || *n == 0 || *n > 600000) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_FLUSH_TIMEOUT_MS", "1..600000", c.flush_timeout_ms, millis);
  apply(getenv_fn, "GPROF_FLUSH_INTERVAL_MS", "1..600000", c.flush_interval_ms, millis);
  apply(getenv_fn, "GPROF_WRITER_DELAY_MS", "1..600000", c.writer_delay_ms, millis);
  apply(getenv_fn, "GPROF_CUPTI", "0 or 1", c.cupti, parse_bool);
  auto buffers = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_uint(t);
    if (!n || *n == 0 || *n > 256) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_CUPTI_BUFFERS", "1..256", c.cupti_buffers, buffers);
  auto buffer_size = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_size(t);
    if (!n || *n < 4096 || *n > (256ull << 20)) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_CUPTI_BUFFER_SIZE", "a size from 4K to 256M, e.g. 1M",
        c.cupti_buffer_bytes, buffer_size);
  apply(getenv_fn, "GPROF_CUPTI_KINDS", "all, none, or a list of kernel,memcpy,memset,sync",
        c.cupti_kinds, parse_cupti_kinds);
  apply(getenv_fn, "GPROF_CUPTI_PER_THREAD_BUFFERS", "0 or 1", c.cupti_per_thread_buffers,
        parse_bool);
  apply(getenv_fn, "GPROF_CUPTI_ZEROED_BUFFERS", "0 or 1", c.cupti_zeroed_buffers, parse_bool);
  apply(getenv_fn, "GPROF_CUPTI_TIMESTAMP_CALLBACK", "0 or 1", c.cupti_timestamp_callback,
        parse_bool);
  apply(getenv_fn, "GPROF_CUPTI_CALLBACKS", "all, runtime, driver or none", c.cupti_callbacks,
        parse_cupti_callbacks);
  if (const char* capture = getenv_fn("GPROF_CAPTURE"); capture && *capture) {
    if (!parse_capture(capture, c)) {
      GPROF_WARN("ignoring GPROF_CAPTURE='%s' (all, cudaProfilerApi or nvtx:NAME[@DOMAIN])",
                 capture);
      c.capture_mode = CaptureMode::kAll;
    }
  }
  if (const char* step = getenv_fn("GPROF_STEP_RANGE"); step && *step) {
    if (strlen(step) < sizeof c.step_name) memcpy(c.step_name, step, strlen(step) + 1);
  }
  apply(getenv_fn, "GPROF_DELAY", "seconds, e.g. 10 or 0.5", c.delay_ms, parse_seconds_as_ms);
  apply(getenv_fn, "GPROF_DURATION", "seconds, e.g. 10 or 0.5", c.duration_ms, parse_seconds_as_ms);
  auto count = [](std::string_view t) -> std::optional<uint64_t> {
    auto n = parse_uint(t);
    if (!n || *n > 100'000'000) return std::nullopt;
    return n;
  };
  apply(getenv_fn, "GPROF_SKIP_STEPS", "a number of steps", c.skip_steps, count);
  apply(getenv_fn, "GPROF_STEPS", "a number of steps", c.steps, count);
  if (const char* only = getenv_fn("GPROF_ONLY_PID"); only && *only) {
    auto pid = parse_uint(only);
    c.other_process = !pid || *pid != static_cast<uint64_t>(getpid());
  }
  return c;
}

}  // namespace gprof
