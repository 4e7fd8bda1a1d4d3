#include "tools/diff/github_annotations.h"

#include "tools/diff/failure_text.h"

namespace gprof::diff {

std::string escape_workflow_data(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string render_github_annotations(const Comparison& comparison) {
  std::string out;
  for (const Failure& failure : comparison.gate.failures)
    out += "::error title=gprof regression::" +
           escape_workflow_data(failure_line(comparison, failure, "->")) + "\n";
  return out;
}

}  // namespace gprof::diff
