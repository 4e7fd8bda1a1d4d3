// --window and --range on the training fixture (training_fixture.h). Times
// are the trace's: its first call at 1000 ns is at ts 1us (the origin's lead,
// time_origin.h), so every fixture time reads 1us later here.
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
  const json t = cut_trace(trace::TimeWindow{11'000, 21'000}, {});
  CHECK(stamps(t, "X") == std::vector<std::string>{
                              "ProfilerStep#0@10", "forward@11", "aten::mm@12",
                              "cudaLaunchKernel@12.5", "aten::mm@15", "cudaLaunchKernel@15.5",
                              "cudaMalloc@18.5", "backward@20", "cudaLaunchKernel@20.5",
                              "square(float*, int)@13", "square(float*, int)@17", "vector_add@21"});
  // Flows whose both ends are in: the three launches and their kernels.
  CHECK(events_of(t, "s").size() == 3);
  CHECK(events_of(t, "f").size() == 3);
  // The start/end range [5, 9] and the mark at 49.5 are outside.
  CHECK(events_of(t, "b").empty());
  CHECK(events_of(t, "i").empty());
  // Memory samples of the calls kept: the cudaMalloc at 18.5.
  CHECK(stamps(t, "C").front() == "device memory in use@18.5");
}

TEST_CASE("trace --window drops a flow whose call is outside", "[trace]") {
  // The vector_add launch [20.5, 21] is out, its kernel [21, 23] in.
  const json t = cut_trace(trace::TimeWindow{21'100, 31'000}, {});
  CHECK(stamps(t, "X", "kernel") == std::vector<std::string>{"vector_add@21"});
  CHECK(events_of(t, "f").size() == 1);  // the DtoH copy [23, 24] of the call at 22.5
  CHECK(events_of(t, "s").size() == 1);
}

TEST_CASE("trace --range keeps what lies inside matching ranges", "[trace]") {
  const json t = cut_trace(std::nullopt, {"backward"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{
            "backward@20", "cudaLaunchKernel@20.5", "cudaFree@21.5", "cudaMemcpyAsync@22.5",
            "cudaStreamSynchronize@24", "backward@40", "cudaLaunchKernel@40.5",
            "cudaMemcpyAsync@42.5", "cudaStreamSynchronize@44", "Memcpy DtoH (Device -> Pinned)@23",
            "Memcpy DtoH (Device -> Pinned)@43.5", "vector_add@21", "vector_add@41"});
  CHECK(events_of(t, "s").size() == 4);
  CHECK(events_of(t, "f").size() == 4);
  CHECK(stamps(t, "C").front() == "device memory in use@21.5");  // the cudaFree
}

TEST_CASE("trace --range matches globs and start/end ranges, on any thread", "[trace]") {
  const json t = cut_trace(std::nullopt, {"data *", "no such range"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{"cudaMemcpyAsync@6", "Memcpy HtoD (Pageable -> Device)@7"});
  CHECK(stamps(t, "b") == std::vector<std::string>{"data loading@5"});
  CHECK(stamps(t, "e") == std::vector<std::string>{"data loading@9"});
  CHECK(events_of(t, "s").size() == 1);

  const json none = cut_trace(std::nullopt, {"no such range"});
  CHECK(events_of(none, "X").empty());
  CHECK(events_of(none, "C").empty());
}

TEST_CASE("trace --window and --range together", "[trace]") {
  const json t = cut_trace(trace::TimeWindow{31'000, 51'000}, {"aten::*"});
  CHECK(stamps(t, "X") ==
        std::vector<std::string>{"aten::mm@32", "cudaLaunchKernel@32.5", "square(float*, int)@33"});
}

}  // namespace
}  // namespace gprof::test
