// `gpuprof analyze` of a checked-in file, byte for byte, in every format
// (golden/README.md): findings, evidence, places, exit status. Runs in the
// golden folder (meson.build), so that paths are the ones update.sh used.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/golden_compare.h"

namespace gprof {
namespace {

TEST_CASE("golden: gpuprof analyze of a checked-in file", "[analyze][golden]") {
  const std::vector<test::CommandCase> all = test::command_cases("cases");
  REQUIRE(all.size() == 6);
  for (const test::CommandCase& c : all) {
    INFO("gpuprof analyze " << c.args << "; expected: " << c.expected
                            << " (test/unit/tools/findings/golden/update.sh BUILD_DIR updates it)");
    const test::Run run = test::gpuprof("analyze " + c.args);
    CHECK(run.status == c.status);
    CHECK(run.out == test::read_golden_file(c.expected));
  }
}

}  // namespace
}  // namespace gprof
