// Names of common cudaError_t values, so that the tools build without CUDA.
#pragma once

#include <string>
#include <string_view>

namespace gprof::analysis {

// "cudaErrorMemoryAllocation" for 2; empty for a code not in the table.
std::string_view cuda_error_name(int code);

// "2 cudaErrorMemoryAllocation", or "12345" for a code not in the table.
std::string describe_cuda_error(int code);

}  // namespace gprof::analysis
