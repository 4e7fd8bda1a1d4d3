// `gpuprof diff` of checked-in files, byte for byte, in every format
// (golden/README.md): the layout, the numbers, the verdict and the exit
// status, as users see them. Runs in the golden folder (meson.build), so
// that paths are the relative ones update.sh used.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/golden_compare.h"

namespace gprof {
namespace {

TEST_CASE("golden: gpuprof diff of checked-in files", "[diff][golden]") {
  const std::vector<test::CommandCase> all = test::command_cases("cases");
  REQUIRE(all.size() == 9);
  for (const test::CommandCase& c : all) {
    INFO("gpuprof diff " << c.args << "; expected: " << c.expected
                         << " (test/unit/tools/comparison/golden/update.sh BUILD_DIR updates it)");
    const test::Run run = test::gpuprof("diff " + c.args);
    CHECK(run.status == c.status);
    CHECK(run.err.empty());
    CHECK(run.out == test::read_golden_file(c.expected));
  }
}

}  // namespace
}  // namespace gprof
