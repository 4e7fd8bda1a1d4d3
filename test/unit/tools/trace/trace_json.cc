#include "test/unit/tools/trace/trace_json.h"

#include <catch2/catch.hpp>

#include <map>
#include <utility>

namespace gprof::test {

json trace_of(const std::vector<std::string>& paths, const trace::TraceOptions& options) {
  trace::StringSink sink;
  const trace::TraceSummary summary = trace::write_trace(paths, options, sink);
  REQUIRE(summary.written);
  return json::parse(sink.text);
}

std::vector<json> events_of(const json& trace, std::string_view ph, std::string_view cat) {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == ph && (cat.empty() || e.value("cat", "") == cat)) out.push_back(e);
  return out;
}

std::vector<std::string> names_of(const std::vector<json>& events) {
  std::vector<std::string> out;
  for (const json& e : events) out.push_back(e.at("name"));
  return out;
}

void check_well_formed(const json& trace) {
  std::map<uint64_t, std::pair<int, double>> starts;  // id -> (count, ts)
  std::map<uint64_t, std::pair<int, double>> ends;
  std::map<std::pair<uint64_t, uint64_t>, double> track_time;
  std::map<std::pair<uint64_t, std::string>, double> counter_time;
  for (const json& e : trace.at("traceEvents")) {
    INFO(e.dump());
    for (const char* field : {"name", "ph", "pid", "tid", "ts"}) CHECK(e.contains(field));
    const std::string ph = e.at("ph");
    const double ts = e.at("ts");
    if (ph == "X") CHECK(e.at("dur").get<double>() >= 0);
    if (ph == "s" || ph == "f" || ph == "b" || ph == "e") CHECK(e.contains("id"));
    if (ph == "s" || ph == "f") {
      auto& [count, time] = (ph == "s" ? starts : ends)[e.at("id").get<uint64_t>()];
      ++count;
      time = ts;
    }
    if (ph == "M") continue;
    if (ph == "C") {
      auto [it, added] = counter_time.try_emplace({e.at("pid"), e.at("name")}, ts);
      CHECK(ts >= it->second);
      it->second = ts;
      continue;
    }
    auto [it, added] = track_time.try_emplace({e.at("pid"), e.at("tid")}, ts);
    CHECK(ts >= it->second);
    it->second = ts;
  }
  CHECK(starts.size() == ends.size());
  for (const auto& [id, start] : starts) {
    INFO("flow " << id);
    CHECK(start.first == 1);
    REQUIRE(ends.contains(id));
    CHECK(ends.at(id).first == 1);
    CHECK(ends.at(id).second >= start.second);
  }
}

}  // namespace gprof::test
