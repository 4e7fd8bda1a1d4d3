// Runs the real gpuprof binary (path in $GPUPROF) and captures what it says.
#pragma once

#include <cstddef>
#include <string>

namespace gprof::test {

struct Run {
  int status = -1;
  std::string out;
  std::string err;
};

// `args` is pasted into a shell command line: quote paths with '...'.
// `env`: assignments put before the command ("NAME=value "), or empty.
Run gpuprof(const std::string& args, const std::string& env = "");

// Number of '\n' in `text`.
size_t lines(const std::string& text);

}  // namespace gprof::test
