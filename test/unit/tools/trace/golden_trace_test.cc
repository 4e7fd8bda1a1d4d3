// The trace of the checked-in training.gprof, byte for byte
// (test/unit/tools/golden/README.md says how to regenerate it).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tools/trace/trace_writer.h"

namespace gprof::test {
namespace {

TEST_CASE("golden: gpuprof trace of a checked-in file", "[golden][trace]") {
  const char* dir = std::getenv("GPROF_GOLDEN_DIR");
  REQUIRE(dir != nullptr);
  const std::string folder = dir;
  trace::StringSink sink;
  REQUIRE(trace::write_trace({folder + "/training.gprof"}, {}, sink).written);
  // update.sh runs from the folder: the file is "training.gprof" there.
  std::string out = sink.text;
  for (size_t at; (at = out.find(folder + "/")) != std::string::npos;)
    out.erase(at, folder.size() + 1);
  std::ifstream in(folder + "/training.trace.json", std::ios::binary);
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  INFO("test/unit/tools/golden/update.sh BUILD_DIR updates training.trace.json");
  CHECK(out == expected.str());
}

}  // namespace
}  // namespace gprof::test
