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

// Decoding, spilling and JSON on helper threads (--jobs) write the same
// bytes, with sorters that spill many runs too.
TEST_CASE("golden: the trace's bytes do not depend on its helper threads", "[golden][trace]") {
  const char* dir = std::getenv("GPROF_GOLDEN_DIR");
  REQUIRE(dir != nullptr);
  const std::string path = std::string(dir) + "/training.gprof";
  for (const size_t sort_memory : {trace::kDefaultSortMemory, size_t{512}}) {
    trace::TraceOptions options;
    options.sort_memory = sort_memory;
    trace::StringSink alone;
    REQUIRE(trace::write_trace({path}, options, alone).written);
    for (const unsigned helpers : {1u, 3u}) {
      options.helpers = helpers;
      trace::StringSink helped;
      const trace::TraceSummary summary = trace::write_trace({path}, options, helped);
      REQUIRE(summary.written);
      INFO("helpers " << helpers << ", sort memory " << sort_memory);
      CHECK(helped.text == alone.text);
      CHECK(summary.events > 50);
    }
  }
}

}  // namespace
}  // namespace gprof::test
