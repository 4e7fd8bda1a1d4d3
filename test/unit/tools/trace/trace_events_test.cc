// The trace of the training fixture (training_fixture.h gives every record;
// times below are relative to its first call, at 1000 ns).
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/trace/trace_json.h"
#include "test/unit/tools/training_fixture.h"

namespace gprof::test {
namespace {

json training_trace(const trace::TraceOptions& options = {}) {
  return trace_of({write_training_capture("trace_training.gprof")}, options);
}

json named(const std::vector<json>& events, std::string_view name, size_t nth = 0) {
  for (const json& e : events)
    if (e.at("name") == name && nth-- == 0) return e;
  FAIL("no event " << name);
  return {};
}

TEST_CASE("trace: the document and its processes", "[trace]") {
  const json t = training_trace();
  check_well_formed(t);
  CHECK(t.at("displayTimeUnit") == "ms");
  const json& other = t.at("otherData");
  CHECK(other.at("schema") == "gprof.trace");
  CHECK(other.at("version") == 1);
  CHECK(other.at("clock") == "CLOCK_MONOTONIC");
  CHECK(other.at("time_origin") == 0);  // 1us before the first call (time_origin.h)
  REQUIRE(other.at("files").size() == 1);
  CHECK(other.at("files")[0].at("pid") == 42);
  CHECK(other.at("files")[0].at("host") == "testhost");
  CHECK(other.at("files")[0].at("command_line") == "./train --epochs 3");

  std::map<std::string, std::string> names;  // "pid/tid" -> name
  for (const json& m : events_of(t, "M"))
    if (m.at("name") != "process_sort_index")
      names[fmt::format("{}/{}", m.at("pid").get<int>(), m.at("tid").get<int>())] =
          m.at("args").at("name");
  CHECK(names == std::map<std::string, std::string>{{"42/0", "train"},
                                                    {"16777216/0", "GPU 0 (pid 42)"},
                                                    {"42/100", "main"},
                                                    {"42/200", "loader"},
                                                    {"16777216/7", "stream 7"},
                                                    {"16777216/1000007", "stream 7 (sync)"},
                                                    {"16777216/9", "stream 9"}});
}

TEST_CASE("trace: CUPTI's syncs as kineto writes them, on a row of their own", "[trace]") {
  // HTA looks for cat cuda_sync and kineto's names ("Trace does not contain CUDA
  // Synchronization events" otherwise); a row apart, since a sync spans the stream's kernels.
  const json t = training_trace();
  const std::vector<json> syncs = events_of(t, "X", "cuda_sync");
  REQUIRE(syncs.size() == 1);
  const json& sync = syncs.front();
  CHECK(sync.at("name") == "Stream Sync");
  CHECK(sync.at("pid") == 16777216);
  CHECK(sync.at("tid") == 1000007);
  CHECK(sync.at("args").at("stream") == 7);
  CHECK(sync.at("args").at("cuda_sync_kind") == "Stream Sync");
  CHECK(sync.at("args").at("correlation") == 5);
}

TEST_CASE("trace: API calls on their threads", "[trace]") {
  const json t = training_trace();
  const std::vector<json> calls = events_of(t, "X", "cuda_runtime");
  CHECK(calls.size() == 15);
  const json launch = named(calls, "cudaLaunchKernel");
  CHECK(launch.at("pid") == 42);
  CHECK(launch.at("tid") == 100);
  CHECK(launch.at("ts") == 12.5);
  CHECK(launch.at("dur") == 0.5);
  const json launch_args = json::parse(
      R"j({"correlation":1,"stream handle":"0x0","kernel":"square(float*, int)",
          "grid":[4096,1,1],"block":[256,1,1],"shared memory":0})j");
  CHECK(launch.at("args") == launch_args);
  // The loader thread's prefetch: its own track.
  const json copy = named(calls, "cudaMemcpyAsync", 2);
  CHECK(copy.at("tid") == 200);
  CHECK(copy.at("ts") == 6.0);
  const json copy_args =
      json::parse(R"({"correlation":10,"stream handle":"0x5000","bytes":262144})");
  CHECK(copy.at("args") == copy_args);
  CHECK(named(calls, "cudaFree").at("args") == json::parse(R"({"correlation":0})"));
  CHECK(events_of(t, "X", "cuda_driver").empty());
}

TEST_CASE("trace: GPU work on device and stream tracks", "[trace]") {
  const json t = training_trace();
  const std::vector<json> kernels = events_of(t, "X", "kernel");
  CHECK(names_of(kernels) == std::vector<std::string>{"square(float*, int)", "square(float*, int)",
                                                      "square(float*, int)", "vector_add",
                                                      "vector_add"});
  const json add = named(kernels, "vector_add");
  CHECK(add.at("pid") == 16777216);
  CHECK(add.at("tid") == 9);
  CHECK(add.at("ts") == 21.0);
  CHECK(add.at("dur") == 2.0);
  const json add_args = json::parse(R"({"correlation":3,"device":0,"stream":9,
      "grid":[1024,1,1],"block":[128,1,1],"shared memory":1536,"registers per thread":32})");
  CHECK(add.at("args") == add_args);
  const std::vector<json> copies = events_of(t, "X", "gpu_memcpy");
  REQUIRE(copies.size() == 4);
  const json upload = named(copies, "Memcpy HtoD (Pinned -> Device)");
  CHECK(upload.at("args").at("bytes") == 1048576);
  CHECK(upload.at("args").at("memory bandwidth (GB/s)") == 1048.576);  // 1 MiB in 1 us
  CHECK(events_of(t, "X", "gpu_memset").empty());
  // The stream synchronizes are sync records, not GPU work.
  for (const json& e : events_of(t, "X")) {
    const bool sync = e.at("name").get<std::string>().find("Synchronize") != std::string::npos;
    CHECK((!sync || e.at("pid") == 42));
  }
}

TEST_CASE("trace: a flow from each call to each piece of its GPU work", "[trace]") {
  const json t = training_trace();
  const std::vector<json> starts = events_of(t, "s", "ac2g");
  const std::vector<json> ends = events_of(t, "f", "ac2g");
  CHECK(starts.size() == 9);  // corr 1-4 and 6-10: every call with work
  REQUIRE(ends.size() == 9);
  const json launch = named(events_of(t, "X", "cuda_runtime"), "cudaLaunchKernel", 2);
  const json kernel = named(events_of(t, "X", "kernel"), "vector_add");
  for (const json& s : starts) {
    if (s.at("ts") != launch.at("ts")) continue;
    CHECK(s.at("tid") == launch.at("tid"));
    const json& f = *std::find_if(ends.begin(), ends.end(),
                                  [&](const json& e) { return e.at("id") == s.at("id"); });
    CHECK(f.at("ts") == kernel.at("ts"));
    CHECK(f.at("pid") == kernel.at("pid"));
    CHECK(f.at("tid") == kernel.at("tid"));
    CHECK(f.at("bp") == "e");
  }
}

TEST_CASE("trace: NVTX ranges, start/end ranges and marks", "[trace]") {
  const json t = training_trace();
  const std::vector<json> ranges = events_of(t, "X", "user_annotation");
  CHECK(names_of(ranges) ==
        std::vector<std::string>{"ProfilerStep#0", "forward", "aten::mm", "aten::mm", "backward",
                                 "ProfilerStep#1", "forward", "aten::mm", "backward", "prefetch"});
  CHECK(named(ranges, "prefetch").at("args") == json::parse(R"({"open at exit":true})"));
  CHECK(named(ranges, "prefetch").at("dur") == 8.0);  // closed at the footer's 60000
  const std::vector<json> begins = events_of(t, "b", "user_annotation");
  const std::vector<json> ends = events_of(t, "e", "user_annotation");
  REQUIRE(begins.size() == 1);
  REQUIRE(ends.size() == 1);
  CHECK(begins[0].at("name") == "data loading");
  CHECK(begins[0].at("ts") == 5.0);
  CHECK(ends[0].at("ts") == 9.0);
  CHECK(begins[0].at("id") == ends[0].at("id"));
  const std::vector<json> marks = events_of(t, "i", "user_annotation");
  REQUIRE(marks.size() == 1);
  CHECK(marks[0].at("name") == "checkpoint");
  CHECK(marks[0].at("s") == "t");
  CHECK(marks[0].at("ts") == 49.5);
}

TEST_CASE("trace: an enclosing slice comes before what it holds at the same time", "[trace]") {
  SidecarBuilder file;
  file.header(test_header())
      .named(pb::StringEntry::NVTX, {{1, "outer"}, {2, "inner"}})
      .ranges(5, {make_range_event(RangeOp::kPush, 100, 2), make_range_event(RangeOp::kPop, 200),
                  make_range_event(RangeOp::kPush, 100, 1), make_range_event(RangeOp::kPop, 300)})
      .calls(5, {make_call(ApiId::cudaDeviceSynchronize, 100, 100)});
  // Pushed inner first: written outer, inner, then the call (a range holds
  // the calls inside it).
  const json t = trace_of({write_temp_file("trace_nested.gprof", file.bytes())});
  check_well_formed(t);
  CHECK(names_of(events_of(t, "X")) ==
        std::vector<std::string>{"outer", "inner", "cudaDeviceSynchronize"});
}

TEST_CASE("trace: ranges named by strings read after they closed, on a thread of ranges only",
          "[trace]") {
  // Ranges stream out as they close (range_stream.h); a damaged file's frames
  // may bring their messages later, and a thread with ranges and no calls
  // gets its track after those with calls: as when ranges were paired at the end.
  SidecarBuilder file;
  file.header(test_header())
      .ranges(6, {make_range_event(RangeOp::kPush, 100, 1), make_range_event(RangeOp::kPop, 150),
                  make_range_event(RangeOp::kMark, 160, 3)})
      .calls(5, {make_call(ApiId::cudaDeviceSynchronize, 100, 100)})
      .ranges(5, {make_range_event(RangeOp::kPush, 120, 2), make_range_event(RangeOp::kPop, 300)})
      .named(pb::StringEntry::NVTX, {{1, "early"}, {2, "late"}, {3, "mark"}})
      .footer(pb::Footer{});
  const json t = trace_of({write_temp_file("trace_late_names.gprof", file.bytes())});
  check_well_formed(t);
  CHECK(names_of(events_of(t, "X")) ==
        std::vector<std::string>{"cudaDeviceSynchronize", "late", "early"});
  CHECK(names_of(events_of(t, "i")) == std::vector<std::string>{"mark"});
  std::vector<int> threads;  // thread_name metadata, in track order
  for (const json& m : events_of(t, "M"))
    if (m.at("name") == "thread_name") threads.push_back(m.at("tid").get<int>());
  CHECK(threads == std::vector<int>{5, 6});
}

TEST_CASE("trace: torch seq and op_id in NVTX range args, by kineto's names", "[trace]") {
  const auto with = [](RangeEvent e, uint64_t seq, uint64_t op_id, uint32_t domain = 0) {
    e.seq = seq;
    e.op_id = op_id;
    e.domain = domain;
    return e;
  };
  SidecarBuilder file;
  file.header(test_header())
      .named(pb::StringEntry::NVTX, {{1, "aten::add"}, {2, "AddBackward0"}, {3, "plain"}})
      .named(pb::StringEntry::DOMAIN, {{4, "torch"}})
      .ranges(5,
              {
                  with(make_range_event(RangeOp::kPush, 100, 1), 13, 34),
                  // The pop's numbers are not the slice's: the push's are.
                  with(make_range_event(RangeOp::kPop, 200), 7, 99),
                  with(make_range_event(RangeOp::kPush, 300, 2, 0), 13, 40, 4),
                  with(make_range_event(RangeOp::kPop, 400), 0, 0, 4),
                  make_range_event(RangeOp::kPush, 500, 3),
                  make_range_event(RangeOp::kPop, 600),
                  with(make_range_event(RangeOp::kStart, 700, 1, 9), 1, 0),
                  make_range_event(RangeOp::kEnd, 800, 0, 9),
                  with(make_range_event(RangeOp::kMark, 900, 3), 0, 41),
              })
      .footer(pb::Footer{});
  const json t = trace_of({write_temp_file("trace_seq.gprof", file.bytes())});
  check_well_formed(t);
  const std::vector<json> ranges = events_of(t, "X", "user_annotation");
  REQUIRE(ranges.size() == 3);
  CHECK(named(ranges, "aten::add").at("args") ==
        json::parse(R"({"Sequence number":12,"op_id":34})"));
  CHECK(named(ranges, "torch:AddBackward0").at("args") ==
        json::parse(R"({"domain":"torch","Sequence number":12,"op_id":40})"));
  CHECK_FALSE(named(ranges, "plain").contains("args"));
  const std::vector<json> begins = events_of(t, "b", "user_annotation");
  const std::vector<json> ends = events_of(t, "e", "user_annotation");
  REQUIRE(begins.size() == 1);
  REQUIRE(ends.size() == 1);
  CHECK(begins[0].at("args") == json::parse(R"({"Sequence number":0})"));
  CHECK_FALSE(ends[0].contains("args"));
  const std::vector<json> marks = events_of(t, "i", "user_annotation");
  REQUIRE(marks.size() == 1);
  CHECK(marks[0].at("args") == json::parse(R"({"op_id":41})"));
}

TEST_CASE("trace: memory and GPU busy counters", "[trace]") {
  trace::TraceOptions options;
  options.busy_bucket_ns = 10'000;
  const json t = training_trace(options);
  std::vector<std::pair<double, uint64_t>> device;
  std::vector<std::pair<double, double>> busy;
  for (const json& c : events_of(t, "C")) {
    if (c.at("name") == "device memory in use")
      device.emplace_back(c.at("ts"), c.at("args").at("bytes"));
    if (c.at("name") == "GPU busy") {
      CHECK(c.at("pid") == 16777216);
      busy.emplace_back(c.at("ts"), c.at("args").at("%"));
    }
  }
  // 4 MiB, + 1 MiB, then that 1 MiB freed.
  CHECK(device ==
        std::vector<std::pair<double, uint64_t>>{{1.0, 4194304}, {18.5, 5242880}, {21.5, 4194304}});
  // Work per 10 us from the first record (ts 1): copies 3.5-4.5 and 7-8;
  // square 13-17, 17-21; vector_add 21-23 and copy 23-24; square 33-37;
  // vector_add 41-43 and copy 43.5-44.5.
  CHECK(busy ==
        std::vector<std::pair<double, double>>{
            {1.0, 20.0}, {11.0, 80.0}, {21.0, 30.0}, {31.0, 40.0}, {41.0, 30.0}, {51.0, 0.0}});
}

TEST_CASE("trace: GPU busy is the union of overlapping work, not its sum", "[trace]") {
  SidecarBuilder file;
  GpuRecord a = make_kernel(1, 1000, 600, 1);
  GpuRecord b = make_kernel(1, 1200, 600, 2);  // overlaps a by 400 ns on another stream
  b.stream = 8;
  file.header(test_header())
      .strings({{1, "k"}})
      .gpu({a, b})
      .calls(5, {make_call(ApiId::cudaDeviceSynchronize, 1000, 10)});
  trace::TraceOptions options;
  options.busy_bucket_ns = 1000;
  const json t = trace_of({write_temp_file("trace_union.gprof", file.bytes())}, options);
  std::vector<double> busy;
  for (const json& c : events_of(t, "C"))
    if (c.at("name") == "GPU busy") busy.push_back(c.at("args").at("%"));
  CHECK(busy == std::vector<double>{80.0, 0.0});  // [1000, 1800) of [1000, 2000)
}

TEST_CASE("trace: a long kernel's busy buckets cost nothing per bucket", "[trace]") {
  SidecarBuilder file;
  // 10^15 ns (11.6 days) in 1 us buckets: 10^12 buckets, were each visited.
  const GpuRecord whole = make_kernel(1, 1500, 1'000'000'000'000'000, 1);
  file.header(test_header())
      .strings({{1, "k"}})
      .gpu({whole})
      .calls(5, {make_call(ApiId::cudaDeviceSynchronize, 1000, 10)});
  trace::TraceOptions options;
  options.busy_bucket_ns = 1000;
  const json t = trace_of({write_temp_file("trace_long.gprof", file.bytes())}, options);
  std::vector<std::pair<double, double>> busy;
  for (const json& c : events_of(t, "C"))
    if (c.at("name") == "GPU busy") busy.emplace_back(c.at("ts"), c.at("args").at("%"));
  // The first record (the call at 1000 ns) at ts 1; work from 1.5 us on:
  // half the first bucket, then all busy, half the last, then idle.
  CHECK(busy == std::vector<std::pair<double, double>>{
                    {1.0, 50.0}, {2.0, 100.0}, {1e12 + 1, 50.0}, {1e12 + 2, 0.0}});
}

}  // namespace
}  // namespace gprof::test
