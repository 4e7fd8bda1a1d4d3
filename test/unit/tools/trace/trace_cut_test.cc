// --window and --range on the training fixture (training_fixture.h; times
// relative to its first call at 1000 ns).
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <set>

#include "test/unit/tools/trace/trace_json.h"
#include "test/unit/tools/training_fixture.h"

namespace gprof::test {
namespace {

json cut_trace(std::optional<trace::TimeWindow> window, std::vector<std::string> ranges) {
  trace::TraceOptions options;
  options.cut.window = window;
  options.cut.ranges = std::move(ranges);
  const json t = trace_of({write_training_capture("trace_cut.gprof")}, options);
  check_well_formed(t);
  return t;
}

// "name@ts" of the events with phase `ph`, in file order.
std::vector<std::string> stamps(const json& t, std::string_view ph, std::string_view cat = "") {
  std::vector<std::string> out;
  for (const json& e : events_of(t, ph, cat))
    out.push_back(fmt::format("{}@{}", e.at("name").get<std::string>(), e.at("ts").get<double>()));
  return out;
}

TEST_CASE("trace --window keeps what overlaps it", "[trace]") {
  const json t = cut_trace(trace::TimeWindow{10'000, 20'000}, {});
  CHECK(stamps(t, "X") == std::vector<std::string>{
                              "ProfilerStep#0@9", "forward@10", "aten::mm@11",
                              "cudaLaunchKernel@11.5", "aten::mm@14", "cudaLaunchKernel@14.5",
                              "cudaMalloc@17.5", "backward@19", "cudaLaunchKernel@19.5",
                              "square(float*, int)@12", "square(float*, int)@16", "vector_add@20"});
  // Flows whose both ends are in: the three launches and their kernels.
  CHECK(events_of(t, "s").size() == 3);
  CHECK(events_of(t, "f").size() == 3);
  // The start/end range [4, 8] and the mark at 48.5 are outside.
  CHECK(events_of(t, "b").empty());
  CHECK(events_of(t, "i").empty());
  // Memory samples of the calls kept: the cudaMalloc at 17.5.
  CHECK(stamps(t, "C").front() == "device memory in use@17.5");
}

TEST_CASE("trace --window drops a flow whose call is outside", "[trace]") {
  // The vector_add launch [19.5, 20] is out, its kernel [20, 22] in.
  const json t = cut_trace(trace::TimeWindow{20'100, 30'000}, {});
  CHECK(stamps(t, "X", "kernel") == std::vector<std::string>{"vector_add@20"});
  CHECK(events_of(t, "f").size() == 1);  // the DtoH copy [22, 23] of the call at 21.5
  CHECK(events_of(t, "s").size() == 1);
}

TEST_CASE("trace --range keeps what lies inside matching ranges", "[trace]") {
  const json t = cut_trace(std::nullopt, {"backward"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{
            "backward@19", "cudaLaunchKernel@19.5", "cudaFree@20.5", "cudaMemcpyAsync@21.5",
            "cudaStreamSynchronize@23", "backward@39", "cudaLaunchKernel@39.5",
            "cudaMemcpyAsync@41.5", "cudaStreamSynchronize@43", "Memcpy DtoH (Device -> Pinned)@22",
            "Memcpy DtoH (Device -> Pinned)@42.5", "vector_add@20", "vector_add@40"});
  CHECK(events_of(t, "s").size() == 4);
  CHECK(events_of(t, "f").size() == 4);
  CHECK(stamps(t, "C").front() == "device memory in use@20.5");  // the cudaFree
}

TEST_CASE("trace --range matches globs and start/end ranges, on any thread", "[trace]") {
  const json t = cut_trace(std::nullopt, {"data *", "no such range"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{"cudaMemcpyAsync@5", "Memcpy HtoD (Pageable -> Device)@6"});
  CHECK(stamps(t, "b") == std::vector<std::string>{"data loading@4"});
  CHECK(stamps(t, "e") == std::vector<std::string>{"data loading@8"});
  CHECK(events_of(t, "s").size() == 1);

  const json none = cut_trace(std::nullopt, {"no such range"});
  CHECK(events_of(none, "X").empty());
  CHECK(events_of(none, "C").empty());
}

TEST_CASE("trace --window and --range together", "[trace]") {
  const json t = cut_trace(trace::TimeWindow{30'000, 50'000}, {"aten::*"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{"aten::mm@31", "cudaLaunchKernel@31.5", "square(float*, int)@32"});
}

}  // namespace
}  // namespace gprof::test
