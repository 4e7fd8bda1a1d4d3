#include "config.h"

#include <cxxabi.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

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

// "name=ns,name=ns": entries that do not parse are skipped, as other knobs keep their default.
std::vector<std::pair<std::string, int64_t>> ReadOverrides(const char* name) {
  std::vector<std::pair<std::string, int64_t>> overrides;
  const char* text = std::getenv(name);
  if (text == nullptr) return overrides;
  std::istringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ',');) {
    const size_t equals = entry.rfind('=');
    if (equals == std::string::npos || equals == 0) continue;
    char* end = nullptr;
    const long long ns = std::strtoll(entry.c_str() + equals + 1, &end, 10);
    if (end == entry.c_str() + equals + 1 || *end != '\0' || ns < 0) continue;
    overrides.emplace_back(entry.substr(0, equals), ns);
  }
  return overrides;
}

// "scale" for "_Z5scalePfi" (demangled "scale(float*, int)"); the name itself when it is not
// mangled.
std::string FunctionName(const std::string& mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string name(demangled);
  std::free(demangled);
  return name.substr(0, name.find('('));
}

Config ReadConfig() {
  Config config;
  constexpr long long kMaxDevices = 64;
  config.device_count = ReadInteger("GPROF_FAKE_DEVICES", config.device_count, 0, kMaxDevices);
  config.device_memory_bytes = ReadInteger("GPROF_FAKE_DEVICE_MEM", config.device_memory_bytes, 0,
                                           static_cast<long long>(1ull << 62));
  config.kernel_ns = ReadInteger("GPROF_FAKE_KERNEL_NS", config.kernel_ns, 0, 3'600'000'000'000);
  config.kernel_ns_overrides = ReadOverrides("GPROF_FAKE_KERNEL_NS_OVERRIDE");
  config.copy_bytes_per_ns = ReadPositive("GPROF_FAKE_COPY_BYTES_PER_NS", config.copy_bytes_per_ns);
  config.driver_version =
      ReadInteger("GPROF_FAKE_DRIVER_VERSION", config.driver_version, 0, 1'000'000);
  config.signal_in_launch = static_cast<int>(ReadInteger("GPROF_FAKE_SIGNAL_IN_LAUNCH", 0, 0, 64));
  config.first_correlation_id = static_cast<uint32_t>(
      ReadInteger("GPROF_FAKE_FIRST_CORRELATION_ID", config.first_correlation_id, 1, 0xFFFFFFFFll));
  config.correlation_step = static_cast<uint32_t>(
      ReadInteger("GPROF_FAKE_CORRELATION_STEP", config.correlation_step, 1, 0x7FFFFFFFll));
  return config;
}

}  // namespace

const Config& GetConfig() {
  static const Config config = ReadConfig();
  return config;
}

int64_t KernelNs(const Config& config, const std::string& mangled_name) {
  if (config.kernel_ns_overrides.empty()) return config.kernel_ns;
  const std::string function = FunctionName(mangled_name);
  for (const auto& [name, ns] : config.kernel_ns_overrides)
    if (name == mangled_name || name == function) return ns;
  return config.kernel_ns;
}

int64_t TransferNs(const Config& config, uint64_t bytes) {
  return config.copy_setup_ns +
         static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / config.copy_bytes_per_ns));
}

}  // namespace gprof_fake
