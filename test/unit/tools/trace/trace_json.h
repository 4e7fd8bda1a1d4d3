// The trace of sidecar files, parsed back with nlohmann::json, and the
// checks every trace must pass, shared by the trace tests.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "tools/trace/trace_writer.h"

namespace gprof::test {

using nlohmann::json;

// write_trace() into memory, parsed.
json trace_of(const std::vector<std::string>& paths, const trace::TraceOptions& options = {});

// The events with phase `ph` (and category `cat` when not empty).
std::vector<json> events_of(const json& trace, std::string_view ph, std::string_view cat = "");

// The names of those events, in file order.
std::vector<std::string> names_of(const std::vector<json>& events);

// Checks (with Catch's CHECK) what every trace must hold: the fields each
// phase needs, one flow end per flow start with the same id and a later or
// equal time, time order per (pid, tid) track and per counter.
void check_well_formed(const json& trace);

}  // namespace gprof::test
