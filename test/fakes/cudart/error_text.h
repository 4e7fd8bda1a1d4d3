// cudaGetErrorName / cudaGetErrorString text, identical to the real CUDA 13.0 runtime's, so that
// output compared across the two runtimes matches.
#pragma once

namespace gprof_fake {

struct ErrorText {
  int code;
  const char* name;
  const char* description;
};

// Null for a code the runtime does not know.
const ErrorText* FindErrorText(int code);

// What both functions return for an unknown code.
inline constexpr const char* kUnrecognizedError = "unrecognized error code";

}  // namespace gprof_fake
