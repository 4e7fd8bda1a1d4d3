#include "test/unit/tools/golden_compare.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace gprof::test {

std::string read_golden_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> golden_cases(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(read_golden_file(path));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line);
  }
  return out;
}

std::vector<CommandCase> command_cases(const std::string& path) {
  std::vector<CommandCase> out;
  for (const std::string& line : golden_cases(path)) {
    std::istringstream words(line);
    CommandCase c;
    words >> c.expected >> c.status;
    std::getline(words >> std::ws, c.args);
    out.push_back(c);
  }
  return out;
}

}  // namespace gprof::test
