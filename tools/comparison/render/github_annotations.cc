#include "tools/comparison/render/github_annotations.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "tools/comparison/render/failure_text.h"

namespace gprof::comparison {

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
  // One annotation per row or total, with every rule it failed: a slower
  // kernel fails its row, its launch call's and the total, and the few
  // annotations GitHub shows go further on distinct rows.
  // Keyed by the row, or by the total's rule: two rows may print alike.
  using Key = std::pair<bool, size_t>;
  std::vector<Key> subjects;
  std::map<Key, std::string> messages;
  for (const Failure& failure : comparison.gate.failures) {
    const Key key = failure.row ? Key{true, *failure.row} : Key{false, failure.rule};
    const std::string part = rule_text(comparison.options.rules[failure.rule]) + ": " +
                             failure_values(comparison, failure, "->");
    auto [it, first] = messages.emplace(key, failure_subject(comparison, failure) + ": " + part);
    if (first)
      subjects.push_back(key);
    else
      it->second += "; " + part;
  }
  // Past the step's limit GitHub drops annotations without a word: the last
  // one it shows says how many more there are.
  const size_t shown = subjects.size() <= kMaxAnnotations ? subjects.size() : kMaxAnnotations - 1;
  std::string out;
  for (size_t i = 0; i < shown; ++i)
    out += "::error title=gprof regression::" + escape_workflow_data(messages[subjects[i]]) + "\n";
  if (shown < subjects.size())
    out += fmt::format(
        "::error title=gprof regression::and {} more rows or totals failed (GitHub shows {} "
        "annotations a step): the diff's output lists them all\n",
        subjects.size() - shown, kMaxAnnotations);
  return out;
}

}  // namespace gprof::comparison
