// read_file with a pool of decoders (pipelined_reader.h) makes the
// visitor's calls of read_file on one thread: the same calls in the same
// order, wants_more after each frame, an early stop honoured, whatever the
// number of decoders and frames in flight.
#include "formats/read/pipelined_reader.h"

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

// Many small frames, so that several decoders have frames at once: calls,
// GPU records and ranges of two threads, a frame with a bad checksum, a
// frame of garbage that parses as nothing, and a footer.
std::string many_frames_file() {
  test::SidecarBuilder file;
  file.header(test::test_header()).strings({{1, "k"}});
  uint64_t correlation = 0;
  for (uint64_t f = 0; f < 120; ++f) {
    std::vector<ApiRecord> calls;
    std::vector<GpuRecord> gpu;
    const uint64_t base = 1000 + f * 10000;
    for (uint64_t i = 0; i < 1 + f % 7; ++i) {
      calls.push_back(test::make_call(ApiId::cudaLaunchKernel, base + i * 100, 10));
      calls.back().correlation = ++correlation;
      gpu.push_back(test::make_kernel(1, base + i * 100 + 20, 30, correlation));
    }
    file.drain({{7, calls}, {8, {test::make_call(ApiId::cudaDeviceSynchronize, base, 50)}}},
               {{7,
                 {test::make_range_event(RangeOp::kPush, base, 0),
                  test::make_range_event(RangeOp::kPop, base + 9000)}}});
    file.gpu(gpu);
    if (f == 40) file.raw(test::framed_payload("definitely not a frame's payload"));
    if (f == 80) {
      std::string bad = test::framed_payload("a checksum that does not match");
      bad[10] ^= 1;
      file.raw(bad);
    }
  }
  pb::Footer footer;
  footer.set_end_clock_ns(2'000'000);
  file.footer(footer);
  return test::write_temp_file("many-frames.gprof", file.bytes());
}

void check_same(const ReadStatus& two, const ReadStatus& one) {
  CHECK(two.opened == one.opened);
  CHECK(two.complete == one.complete);
  CHECK(two.frames == one.frames);
  CHECK(two.bad_frames == one.bad_frames);
  CHECK(two.ignored_bytes == one.ignored_bytes);
  CHECK(two.file_bytes == one.file_bytes);
  CHECK(two.records == one.records);
  CHECK(two.gpu_records == one.gpu_records);
  CHECK(two.range_events == one.range_events);
  CHECK(two.error == one.error);
}

TEST_CASE("pipelined reading makes read_file's calls in read_file's order", "[reader]") {
  const std::string path = sample_file();
  Log plain;
  const ReadStatus one = read_file(path, plain);
  for (size_t decoders : {1, 2, 4})
    for (size_t depth : {1, 2, 8, 0}) {
      Log piped;
      const ReadStatus two = read_file_pipelined(path, piped, decoders, depth);
      INFO("decoders " << decoders << ", depth " << depth);
      CHECK(piped.lines == plain.lines);
      check_same(two, one);
    }
  REQUIRE(plain.lines.size() > 100);
}

TEST_CASE("a pool of decoders delivers many frames in file order", "[reader]") {
  const std::string path = many_frames_file();
  Log plain;
  const ReadStatus one = read_file(path, plain);
  REQUIRE(one.frames > 240);
  REQUIRE(one.bad_frames == 2);
  REQUIRE(one.complete);
  for (int round = 0; round < 3; ++round)
    for (size_t decoders : {1, 2, 3, 8})
      for (size_t depth : {1, 3, 16, 0}) {
        Log piped;
        const ReadStatus two = read_file_pipelined(path, piped, decoders, depth);
        INFO("decoders " << decoders << ", depth " << depth);
        CHECK(piped.lines == plain.lines);
        check_same(two, one);
      }
}

TEST_CASE("a pool of decoders stops where the visitor does", "[reader]") {
  const std::string path = many_frames_file();
  for (size_t stop : {1, 2, 41, 42, 150})
    for (size_t decoders : {1, 3})
      for (size_t depth : {1, 4}) {
        Log plain(stop);
        const ReadStatus one = read_file(path, plain);
        Log piped(stop);
        const ReadStatus two = read_file_pipelined(path, piped, decoders, depth);
        INFO("stop after " << stop << ", decoders " << decoders << ", depth " << depth);
        CHECK(piped.lines == plain.lines);
        // Only what was delivered is counted.
        CHECK(two.frames == one.frames);
        CHECK(two.bad_frames == one.bad_frames);
        CHECK(two.records == one.records);
        CHECK(two.gpu_records == one.gpu_records);
      }
}

TEST_CASE("a pool of decoders reports a file it cannot open as read_file does", "[reader]") {
  Log plain, piped;
  const ReadStatus one = read_file("/nonexistent/file.gprof", plain);
  const ReadStatus two = read_file_pipelined("/nonexistent/file.gprof", piped, 2);
  CHECK_FALSE(two.opened);
  CHECK(two.error == one.error);
  CHECK(piped.lines.empty());
}

TEST_CASE("pipelined reading stops where the visitor does", "[reader]") {
  const std::string path = sample_file();
  for (size_t stop : {1, 2, 3}) {
    Log plain(stop);
    read_file(path, plain);
    for (size_t decoders : {1, 2}) {
      Log piped(stop);
      read_file_pipelined(path, piped, decoders, 1);
      INFO("stop after " << stop << ", decoders " << decoders);
      CHECK(piped.lines == plain.lines);
    }
  }
}

}  // namespace
}  // namespace gprof
