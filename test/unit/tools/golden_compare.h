// What the golden tests (golden_test.cc, diff/golden_diff_test.cc,
// analyze/golden_analyze_test.cc) share: the checked-in files they compare
// gpuprof's output with, and their `cases`.
#pragma once

#include <string>
#include <vector>

namespace gprof::test {

// The bytes of `path`; fails the test case when it cannot be read.
std::string read_golden_file(const std::string& path);

// The lines of a golden folder's `cases` file at `path`, without the blank
// ones and the # comments; each test splits a line its own way.
std::vector<std::string> golden_cases(const std::string& path);

// A `cases` line "EXPECTED STATUS ARGS...": the golden file's name, gpuprof's
// exit status, and its arguments after the command (diff, analyze).
struct CommandCase {
  std::string expected;
  int status = 0;
  std::string args;
};
std::vector<CommandCase> command_cases(const std::string& path);

}  // namespace gprof::test
