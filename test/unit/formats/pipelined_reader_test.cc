// read_file on two threads (pipelined_reader.h) makes the visitor's calls
// of read_file on one: the same calls in the same order, wants_more after
// each frame, an early stop honoured.
#include "formats/pipelined_reader.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"

namespace gprof {
namespace {

// Every call as a line; stops after `frames` frames when not 0.
struct Log : RecordVisitor {
  explicit Log(size_t stop_after = 0) : stop_after(stop_after) {}
  void on_header(const pb::FileHeader& h) override { add("header " + std::to_string(h.pid())); }
  void on_string(const pb::StringEntry& e) override { add("string " + e.value()); }
  void on_api(const ApiRecord& r) override {
    add("api " + std::to_string(r.start_ns) + " " + std::to_string(r.correlation));
  }
  void on_gpu(const GpuRecord& r) override { add("gpu " + std::to_string(r.start_ns)); }
  void on_range(const RangeEvent& e) override {
    add("range " + std::to_string(static_cast<int>(e.op)) + " " + std::to_string(e.time_ns));
  }
  void on_external_correlation(uint64_t c, uint64_t x) override {
    add("external " + std::to_string(c) + " " + std::to_string(x));
  }
  void on_cupti(const pb::CuptiStatus& s) override { add("cupti " + std::to_string(s.state())); }
  void on_footer(const pb::Footer& f) override {
    add("footer " + std::to_string(f.end_clock_ns()));
  }
  bool wants_more() override {
    add("frame");
    return stop_after == 0 || ++frames < stop_after;
  }
  void add(std::string line) { lines.push_back(std::move(line)); }

  size_t stop_after;
  size_t frames = 0;
  std::vector<std::string> lines;
};

std::string sample_file() {
  std::vector<ApiRecord> calls;
  std::vector<GpuRecord> gpu;
  for (uint64_t i = 1; i <= 50; ++i) {
    calls.push_back(test::make_call(ApiId::cudaLaunchKernel, i * 100, 10));
    calls.back().correlation = i;
    gpu.push_back(test::make_kernel(1, i * 100 + 20, 30, i));
  }
  pb::Footer footer;
  footer.set_end_clock_ns(9999);
  test::SidecarBuilder file;
  file.header(test::test_header())
      .strings({{1, "k"}})
      .drain({{7, calls}}, {{7,
                             {test::make_range_event(RangeOp::kPush, 50, 0),
                              test::make_range_event(RangeOp::kPop, 6000)}}})
      .gpu(gpu)
      .external({{3, 4}})
      .raw("not a frame at all, a damaged tail")
      .footer(footer);
  return test::write_temp_file("pipelined.gprof", file.bytes());
}

TEST_CASE("pipelined reading makes read_file's calls in read_file's order", "[reader]") {
  const std::string path = sample_file();
  Log plain;
  const ReadStatus one = read_file(path, plain);
  for (size_t depth : {1, 2, 8}) {
    Log piped;
    const ReadStatus two = read_file_pipelined(path, piped, depth);
    INFO("depth " << depth);
    CHECK(piped.lines == plain.lines);
    CHECK(two.frames == one.frames);
    CHECK(two.bad_frames == one.bad_frames);
    CHECK(two.records == one.records);
    CHECK(two.gpu_records == one.gpu_records);
  }
  REQUIRE(plain.lines.size() > 100);
}

TEST_CASE("pipelined reading stops where the visitor does", "[reader]") {
  const std::string path = sample_file();
  for (size_t stop : {1, 2, 3}) {
    Log plain(stop);
    read_file(path, plain);
    Log piped(stop);
    read_file_pipelined(path, piped, 1);
    INFO("stop after " << stop);
    CHECK(piped.lines == plain.lines);
  }
}

}  // namespace
}  // namespace gprof
