// Several files on one time axis: one host's processes share CLOCK_MONOTONIC;
// files from several hosts are put on wall time.
#include <catch2/catch.hpp>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "test/unit/tools/trace/trace_json.h"
#include "tools/trace/clock_alignment.h"

namespace gprof::test {
namespace {

// One launch at `start` (its kernel 500 ns later) by process `pid` on `host`,
// whose clock is `offset` behind wall time.
std::string one_launch(const std::string& name, const std::string& host, uint32_t pid,
                       int64_t offset, uint64_t start) {
  pb::FileHeader header = test_header();
  header.set_host(host);
  header.set_pid(pid);
  header.mutable_clock()->set_offset_to_wall_ns(offset);
  pb::Device* device = header.add_devices();
  device->set_ordinal(0);
  device->set_name("NVIDIA H100");
  SidecarBuilder file;
  file.header(header)
      .cupti(subscribed_status())
      .strings({{1, "k"}})
      .gpu({make_kernel(1, start + 500, 1000, 1)})
      .calls(pid + 1, {make_launch(ApiId::cudaLaunchKernel, start, 100, 1, 1)});
  return write_temp_file(name, file.bytes());
}

std::vector<double> kernel_times(const json& t) {
  std::vector<double> out;
  for (const json& e : events_of(t, "X", "kernel")) out.push_back(e.at("ts"));
  return out;
}

TEST_CASE("clock plan: one host and clock, or wall time", "[trace]") {
  pb::FileHeader a = test_header();
  a.mutable_clock()->set_offset_to_wall_ns(100);
  pb::FileHeader b = a;
  b.mutable_clock()->set_offset_to_wall_ns(300);
  trace::ClockPlan same = trace::plan_clocks({&a, &b});
  CHECK(same.clock == "CLOCK_MONOTONIC");
  CHECK(same.shift == std::vector<int64_t>{0, 0});
  b.set_host("other");
  trace::ClockPlan wall = trace::plan_clocks({&a, &b});
  CHECK(wall.clock == "wall");
  CHECK(wall.shift == std::vector<int64_t>{100, 300});
  b.set_host(a.host());
  b.mutable_clock()->set_name("CLOCK_REALTIME");
  CHECK(trace::plan_clocks({&a, &b}).clock == "wall");
  CHECK(trace::plan_clocks({&b}).clock == "CLOCK_REALTIME");
}

TEST_CASE("clock plan: a file without a header borrows the first header's clock", "[trace]") {
  pb::FileHeader a = test_header();
  a.mutable_clock()->set_offset_to_wall_ns(100);
  trace::ClockPlan one_host = trace::plan_clocks({nullptr, &a});
  CHECK(one_host.clock == "CLOCK_MONOTONIC");
  CHECK(one_host.shift == std::vector<int64_t>{0, 0});
  CHECK(one_host.assumed == std::vector<bool>{true, false});
  CHECK(one_host.as_file == 1u);
  // On wall time it takes that file's offset: not 57 years before the others.
  pb::FileHeader b = a;
  b.set_host("other");
  b.mutable_clock()->set_offset_to_wall_ns(300);
  trace::ClockPlan wall = trace::plan_clocks({&a, &b, nullptr});
  CHECK(wall.clock == "wall");
  CHECK(wall.shift == std::vector<int64_t>{100, 300, 100});
  CHECK(wall.assumed == std::vector<bool>{false, false, true});
  trace::ClockPlan none = trace::plan_clocks({nullptr, nullptr});
  CHECK(none.clock == "CLOCK_MONOTONIC");
  CHECK_FALSE(none.as_file);
}

TEST_CASE("trace of two processes of one host: their clock as it is", "[trace]") {
  // Different offsets to wall time are ignored: both read CLOCK_MONOTONIC.
  const json t = trace_of({one_launch("clock_a.gprof", "node1", 10, 5'000, 100'000),
                           one_launch("clock_b.gprof", "node1", 20, 9'000'000, 103'000)});
  check_well_formed(t);
  CHECK(t.at("otherData").at("clock") == "CLOCK_MONOTONIC");
  CHECK(t.at("otherData").at("time_origin") == 99'000);  // 1us before the first record
  CHECK(kernel_times(t) == std::vector<double>{1.5, 4.5});
  std::vector<std::string> processes;
  for (const json& m : events_of(t, "M"))
    if (m.at("name") == "process_name") processes.push_back(m.at("args").at("name"));
  // Viewers show a process's pid beside its name; a GPU's trace process has
  // a number of its own, so its name says whose it is.
  CHECK(processes == std::vector<std::string>{"train", "GPU 0: NVIDIA H100 (pid 10)", "train",
                                              "GPU 0: NVIDIA H100 (pid 20)"});
  // Flow ids stay unique across files.
  const std::vector<json> flows = events_of(t, "s");
  REQUIRE(flows.size() == 2);
  CHECK(flows[0].at("id") != flows[1].at("id"));
}

TEST_CASE("trace of two hosts: wall time, and a shared pid made unique", "[trace]") {
  // Host b's clock reads 2 us less than host a's at the same wall time.
  const json t = trace_of({one_launch("wall_a.gprof", "a", 42, 1'000'000'000, 100'000),
                           one_launch("wall_b.gprof", "b", 42, 1'000'002'000, 100'000)});
  check_well_formed(t);
  CHECK(t.at("otherData").at("clock") == "wall");
  CHECK(t.at("otherData").at("time_origin") == 1'000'099'000);
  CHECK(kernel_times(t) == std::vector<double>{1.5, 3.5});
  const json& files = t.at("otherData").at("files");
  REQUIRE(files.size() == 2);
  CHECK(files[0].at("pid") == 42);
  CHECK(files[1].at("pid") == 42);
  CHECK(files[0].at("trace_pid") == 42);
  CHECK(files[1].at("trace_pid") != 42);
  std::set<int> pids;
  for (const json& e : events_of(t, "X", "cuda_runtime")) pids.insert(e.at("pid").get<int>());
  CHECK(pids == std::set<int>{42, files[1].at("trace_pid").get<int>()});
  // The renumbered process: the number a viewer shows is not its pid.
  std::vector<std::string> processes;
  for (const json& m : events_of(t, "M"))
    if (m.at("name") == "process_name" && m.at("pid") == files[1].at("trace_pid"))
      processes.push_back(m.at("args").at("name"));
  CHECK(processes == std::vector<std::string>{"train (pid 42)"});
}

}  // namespace
}  // namespace gprof::test
