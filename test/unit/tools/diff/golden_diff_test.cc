// `gpuprof diff` of checked-in files, byte for byte, in every format
// (golden/README.md): the layout, the numbers, the verdict and the exit
// status, as users see them. Runs in the golden folder (meson.build), so
// that paths are the relative ones update.sh used.
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

TEST_CASE("golden: gpuprof diff of checked-in files", "[diff][golden]") {
  const std::vector<Case> all = cases();
  REQUIRE(all.size() == 8);
  for (const Case& c : all) {
    INFO("gpuprof diff " << c.args << "; expected: " << c.expected
                         << " (test/unit/tools/diff/golden/update.sh BUILD_DIR updates it)");
    const test::Run run = test::gpuprof("diff " + c.args);
    CHECK(run.status == c.status);
    CHECK(run.err.empty());
    CHECK(run.out == test::read_golden_file(c.expected));
  }
}

}  // namespace
}  // namespace gprof
