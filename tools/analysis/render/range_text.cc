#include "tools/analysis/render/range_text.h"

#include <fmt/format.h>

#include <string_view>

namespace gprof::analysis {
namespace {

void append(std::string& out, uint64_t n, std::string_view one, std::string_view many) {
  if (n == 0) return;
  if (!out.empty()) out += ", ";
  out += fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string describe_range_problems(const RangeCounts& c) {
  std::string out;
  append(out, c.unbalanced_pops, "unbalanced pop", "unbalanced pops");
  append(out, c.open_at_exit, "open at exit (closed at the last timestamp)",
         "open at exit (closed at the last timestamp)");
  append(out, c.ends_without_start, "end without start", "ends without start");
  append(out, c.cross_thread, "ended on another thread", "ended on another thread");
  return out;
}

std::string describe_ranges(const RangeCounts& c) {
  if (c.push_pop == 0 && c.start_end == 0 && c.marks == 0 && !c.noteworthy()) return "none";
  std::string out = fmt::format("{} push/pop, {} start/end, {} {}", c.push_pop, c.start_end,
                                c.marks, c.marks == 1 ? "mark" : "marks");
  const std::string problems = describe_range_problems(c);
  if (!problems.empty()) out += "; " + problems;
  return out;
}

}  // namespace gprof::analysis
