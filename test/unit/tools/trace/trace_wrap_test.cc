// A long run's 32-bit CUPTI ids wrap (gpu_fixtures.h): each kernel's flow
// comes from the launch that issued it, not from the launch 2^32 ids
// earlier that had the same id, and both ends say the unwrapped id.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "test/unit/tools/gpu_fixtures.h"
#include "test/unit/tools/trace/trace_json.h"

namespace gprof::test {
namespace {

void check_pairs(const json& t) {
  check_well_formed(t);
  std::map<std::string, json> launches;  // by kernel name
  for (const json& c : events_of(t, "X", "cuda_runtime")) launches[c.at("args").at("kernel")] = c;
  std::map<double, json> flow_starts;  // by id
  for (const json& s : events_of(t, "s")) flow_starts[s.at("id")] = s;
  std::map<double, json> flow_ends;  // by time: one kernel at a time here
  for (const json& f : events_of(t, "f")) flow_ends[f.at("ts")] = f;
  const std::vector<json> kernels = events_of(t, "X", "kernel");
  REQUIRE(kernels.size() == 6);
  for (const json& k : kernels) {
    const std::string name = k.at("name");
    INFO(name);
    const uint64_t i = static_cast<uint64_t>(name.at(1) - '0');
    const json& launch = launches.at(name);
    CHECK(k.at("ts").get<double>() == launch.at("ts").get<double>() + 0.5);
    CHECK(k.at("args").at("correlation") == launch.at("args").at("correlation"));
    REQUIRE(flow_ends.count(k.at("ts")) == 1);
    const json& start = flow_starts.at(flow_ends.at(k.at("ts")).at("id"));
    CHECK(start.at("ts") == launch.at("ts"));          // the flow leaves this kernel's own launch
    if (launch.at("args").at("correlation") != i + 1)  // SUBSCRIBED: CUPTI's ids, unwrapped
      CHECK(launch.at("args").at("correlation") == wrapped_id(i));
  }
}

TEST_CASE("trace: CUPTI ids that wrap pair each kernel with its own launch", "[trace]") {
  const json t = trace_of({write_wrapped_capture("trace_wrapped.gprof", false)});
  check_pairs(t);
  std::map<std::string, uint64_t> ids;
  for (const json& c : events_of(t, "X", "cuda_runtime"))
    ids[c.at("args").at("kernel")] = c.at("args").at("correlation");
  CHECK(ids == std::map<std::string, uint64_t>{{"k0", wrapped_id(0)},
                                               {"k1", wrapped_id(1)},
                                               {"k2", wrapped_id(2)},
                                               {"k3", wrapped_id(3)},
                                               {"k4", wrapped_id(4)},
                                               {"k5", wrapped_id(5)}});
}

TEST_CASE("trace: external mode unwraps the mapping's CUPTI ids", "[trace]") {
  const json t = trace_of({write_wrapped_capture("trace_wrapped_external.gprof", true)});
  check_pairs(t);
  for (const json& k : events_of(t, "X", "kernel"))
    CHECK(k.at("args").at("correlation") ==
          static_cast<uint64_t>(k.at("name").get<std::string>().at(1) - '0') + 1);
}

}  // namespace
}  // namespace gprof::test
