#include "tools/analysis/read/cuda_errors.h"

#include <array>
#include <utility>

namespace gprof::analysis {
namespace {

// Values from CUDA 13.0 include/driver_types.h (enum cudaError).
constexpr std::array<std::pair<int, std::string_view>, 44> kErrors = {{
    {0, "cudaSuccess"},
    {1, "cudaErrorInvalidValue"},
    {2, "cudaErrorMemoryAllocation"},
    {3, "cudaErrorInitializationError"},
    {4, "cudaErrorCudartUnloading"},
    {5, "cudaErrorProfilerDisabled"},
    {9, "cudaErrorInvalidConfiguration"},
    {12, "cudaErrorInvalidPitchValue"},
    {13, "cudaErrorInvalidSymbol"},
    {17, "cudaErrorInvalidDevicePointer"},
    {21, "cudaErrorInvalidMemcpyDirection"},
    {34, "cudaErrorStubLibrary"},
    {35, "cudaErrorInsufficientDriver"},
    {36, "cudaErrorCallRequiresNewerDriver"},
    {46, "cudaErrorDevicesUnavailable"},
    {52, "cudaErrorMissingConfiguration"},
    {98, "cudaErrorInvalidDeviceFunction"},
    {100, "cudaErrorNoDevice"},
    {101, "cudaErrorInvalidDevice"},
    {200, "cudaErrorInvalidKernelImage"},
    {201, "cudaErrorDeviceUninitialized"},
    {209, "cudaErrorNoKernelImageForDevice"},
    {214, "cudaErrorECCUncorrectable"},
    {218, "cudaErrorInvalidPtx"},
    {222, "cudaErrorUnsupportedPtxVersion"},
    {304, "cudaErrorOperatingSystem"},
    {400, "cudaErrorInvalidResourceHandle"},
    {401, "cudaErrorIllegalState"},
    {500, "cudaErrorSymbolNotFound"},
    {600, "cudaErrorNotReady"},
    {700, "cudaErrorIllegalAddress"},
    {701, "cudaErrorLaunchOutOfResources"},
    {702, "cudaErrorLaunchTimeout"},
    {709, "cudaErrorContextIsDestroyed"},
    {710, "cudaErrorAssert"},
    {719, "cudaErrorLaunchFailure"},
    {720, "cudaErrorCooperativeLaunchTooLarge"},
    {800, "cudaErrorNotPermitted"},
    {801, "cudaErrorNotSupported"},
    {803, "cudaErrorSystemDriverMismatch"},
    {900, "cudaErrorStreamCaptureUnsupported"},
    {901, "cudaErrorStreamCaptureInvalidated"},
    {909, "cudaErrorTimeout"},
    {999, "cudaErrorUnknown"},
}};

}  // namespace

std::string_view cuda_error_name(int code) {
  for (const auto& [value, name] : kErrors)
    if (value == code) return name;
  return {};
}

std::string describe_cuda_error(int code) {
  std::string out = std::to_string(code);
  const std::string_view name = cuda_error_name(code);
  if (!name.empty()) {
    out += ' ';
    out += name;
  }
  return out;
}

}  // namespace gprof::analysis
