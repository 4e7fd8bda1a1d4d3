// Where a renderer writes its text, part by part, so that a table of a row
// per op (--group-by seq --limit 0) is not also held as one string: stdout
// for the commands, a string for the tests and the callers that want one.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace gprof::analysis {

using TextSink = std::function<void(std::string_view)>;

inline void write_stdout(std::string_view part) {
  std::fwrite(part.data(), 1, part.size(), stdout);
}

// The text `render` writes to the sink it is given, as one string.
template <typename Render>
std::string collect_text(Render&& render) {
  std::string out;
  render([&](std::string_view part) { out += part; });
  return out;
}

}  // namespace gprof::analysis
