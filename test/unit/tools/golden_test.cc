// The report of a checked-in sidecar file, byte for byte (golden/README.md):
// the layout, the numbers and the lines under the table, as users see them.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/golden_compare.h"

namespace gprof {
namespace {

std::string golden_dir() {
  const char* dir = std::getenv("GPROF_GOLDEN_DIR");
  REQUIRE(dir != nullptr);
  return dir;
}

struct Case {
  std::string expected;  // file name in the golden folder
  std::string args;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& line : test::golden_cases(golden_dir() + "/cases")) {
    const size_t space = line.find(' ');
    if (space == std::string::npos)
      out.push_back(Case{line, ""});
    else
      out.push_back(Case{line.substr(0, space), line.substr(space + 1)});
  }
  return out;
}

TEST_CASE("golden: gpuprof report of a checked-in file", "[golden]") {
  const std::string dir = golden_dir();
  const std::vector<Case> all = cases();
  REQUIRE(all.size() == 8);
  // Streamed (the key-averages views), read in memory (GPROF_STREAM=0,
  // tools/analysis/aggregate/ops_stream.h) and with the rows spilled past
  // two of them (render/large_table.h): the same bytes.
  for (const char* path : {"", "GPROF_STREAM=0 ", "GPROF_STREAM=spill-rows "})
    for (const Case& c : all) {
      INFO(path << "gpuprof report " << c.args << " training.gprof; expected: " << c.expected
                << " (test/unit/tools/golden/update.sh BUILD_DIR updates it)");
      const test::Run run =
          test::gpuprof("report " + c.args + " '" + dir + "/training.gprof'", path);
      CHECK(run.status == 0);
      CHECK(run.err.empty());
      // The JSON report names the file; update.sh runs from the folder.
      std::string out = run.out;
      for (size_t at; (at = out.find(dir + "/")) != std::string::npos;)
        out.erase(at, dir.size() + 1);
      CHECK(out == test::read_golden_file(dir + "/" + c.expected));
    }
}

}  // namespace
}  // namespace gprof
