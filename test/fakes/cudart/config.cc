#include "config.h"

#include <cmath>
#include <cstdlib>

namespace gprof_fake {
namespace {

// Integer knob in [min, max]; anything else (unset, junk, out of range) keeps `fallback`.
template <typename T>
T ReadInteger(const char* name, T fallback, long long min, long long max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < min || value > max) return fallback;
  return static_cast<T>(value);
}

double ReadPositive(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value > 0.0) || !std::isfinite(value)) return fallback;
  return value;
}

Config ReadConfig() {
  Config config;
  constexpr long long kMaxDevices = 64;
  config.device_count = ReadInteger("GPROF_FAKE_DEVICES", config.device_count, 0, kMaxDevices);
  config.device_memory_bytes = ReadInteger("GPROF_FAKE_DEVICE_MEM", config.device_memory_bytes, 0,
                                           static_cast<long long>(1ull << 62));
  config.kernel_ns = ReadInteger("GPROF_FAKE_KERNEL_NS", config.kernel_ns, 0, 3'600'000'000'000);
  config.copy_bytes_per_ns = ReadPositive("GPROF_FAKE_COPY_BYTES_PER_NS", config.copy_bytes_per_ns);
  config.driver_version =
      ReadInteger("GPROF_FAKE_DRIVER_VERSION", config.driver_version, 0, 1'000'000);
  return config;
}

}  // namespace

const Config& GetConfig() {
  static const Config config = ReadConfig();
  return config;
}

int64_t TransferNs(const Config& config, uint64_t bytes) {
  return config.copy_setup_ns +
         static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / config.copy_bytes_per_ns));
}

}  // namespace gprof_fake
