#include "config.h"

#include <ctime>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace gprof_fake_cupti {
namespace {

bool ParseCount(std::string_view text, uint64_t max, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > max) return false;
  }
  *out = value;
  return true;
}

bool ApplyValue(std::string_view key, std::string_view value, Config* config) {
  uint64_t number = 0;
  constexpr uint64_t kMaxCount = 1ull << 40;
  if (key == "version") {
    if (!ParseCount(value, UINT32_MAX, &number)) return false;
    config->has_version = true;
    config->version = static_cast<uint32_t>(number);
    return true;
  }
  if (!ParseCount(value, kMaxCount, &number) || number == 0) return false;
  if (key == "drop_every") {
    config->drop_every = number;
  } else if (key == "zero_timestamps_every") {
    config->zero_timestamps_every = number;
  } else if (key == "buffer_records") {
    config->buffer_records = number;
  } else if (key == "exit_without_enter") {
    config->exit_without_enter = number;
  } else {
    return false;
  }
  return true;
}

bool ApplyWord(std::string_view word, Config* config) {
  const size_t equals = word.find('=');
  if (equals != std::string_view::npos) {
    return ApplyValue(word.substr(0, equals), word.substr(equals + 1), config);
  }
  if (word == "no_driver") {
    config->no_driver = true;
  } else if (word == "subscriber_taken") {
    config->subscriber_taken = true;
  } else if (word == "activity_in_use") {
    config->activity_in_use = true;
  } else if (word == "insufficient_privileges") {
    config->insufficient_privileges = true;
  } else if (word == "out_of_order") {
    config->out_of_order = true;
  } else if (word == "no_timestamp_callback") {
    config->no_timestamp_callback = true;
  } else {
    return false;
  }
  return true;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

void ReadModes(const char* modes, Config* config) {
  std::string_view rest = modes;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view word = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (word.empty() || ApplyWord(word, config)) continue;
    const std::string copy(word);
    std::fprintf(stderr, "fake cupti: ignoring unknown mode '%s' in GPROF_FAKE_CUPTI\n",
                 copy.c_str());
  }
}

int64_t ReadOffset(int64_t fallback) {
  const char* text = std::getenv("GPROF_FAKE_CUPTI_CLOCK_OFFSET_NS");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  constexpr long long kLimit = 1ll << 62;
  if (*end != '\0' || value < -kLimit || value > kLimit) return fallback;
  return value;
}

// Without a timestamp callback, CUPTI 13.0.1's clock read about 1.8e18 ns where CLOCK_MONOTONIC
// read seconds since boot: nanoseconds since the Unix epoch (observed: NVIDIA H100, driver
// 580.159.04, 2026-11-27; cuptiGetTimestamp in test/fakes/observed/). The fake's default clock
// is CLOCK_REALTIME, so that a profiler that forgets to convert is visibly wrong, as on a GPU.
int64_t RealtimeOffsetNs() {
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  return (static_cast<int64_t>(real.tv_sec) - mono.tv_sec) * 1'000'000'000 +
         (real.tv_nsec - mono.tv_nsec);
}

Config ReadConfig() {
  Config config;
  config.clock_offset_ns = RealtimeOffsetNs();
  if (const char* modes = std::getenv("GPROF_FAKE_CUPTI"); modes != nullptr) {
    ReadModes(modes, &config);
  }
  config.clock_offset_ns = ReadOffset(config.clock_offset_ns);
  return config;
}

}  // namespace

const Config& GetConfig() {
  static const Config config = ReadConfig();
  return config;
}

}  // namespace gprof_fake_cupti
