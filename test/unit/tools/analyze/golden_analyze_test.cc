// `gpuprof analyze` of a checked-in file, byte for byte, in every format
// (golden/README.md): findings, evidence, places, exit status. Runs in the
// golden folder (meson.build), so that paths are the ones update.sh used.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/golden_compare.h"

namespace gprof {
namespace {

struct Case {
  std::string expected;  // file name in the golden folder
  int status = 0;
  std::string args;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& line : test::golden_cases("cases")) {
    std::istringstream words(line);
    Case c;
    words >> c.expected >> c.status;
    std::getline(words >> std::ws, c.args);
    out.push_back(c);
  }
  return out;
}

TEST_CASE("golden: gpuprof analyze of a checked-in file", "[analyze][golden]") {
  const std::vector<Case> all = cases();
  REQUIRE(all.size() == 6);
  for (const Case& c : all) {
    INFO("gpuprof analyze " << c.args << "; expected: " << c.expected
                            << " (test/unit/tools/analyze/golden/update.sh BUILD_DIR updates it)");
    const test::Run run = test::gpuprof("analyze " + c.args);
    CHECK(run.status == c.status);
    CHECK(run.out == test::read_golden_file(c.expected));
  }
}

}  // namespace
}  // namespace gprof
