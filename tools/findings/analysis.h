// Runs the chosen rules over the files' timelines: the findings, most costly
// first, with what the renderers print around them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/findings/finding.h"
#include "tools/findings/rules/rule.h"
#include "tools/findings/rules/thresholds.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

struct FileSummary {
  std::string path;
  std::string rank;
  uint32_t pid = 0;
  uint64_t window_ns = 0;  // less setup_ns
  uint64_t setup_ns = 0;   // Timeline::setup_ns
  uint64_t steps = 0;
};

struct Analysis {
  std::vector<FileSummary> files;
  std::vector<const RuleSpec*> rules;  // the rules that ran
  Thresholds thresholds;
  std::vector<std::string> ranges;  // --range patterns
  std::string step_pattern;         // the pattern that found steps; empty: none
  uint64_t steps = 0;
  // The files' windows, less their setup (Timeline::setup_end_ns): what
  // shares are of.
  uint64_t window_ns = 0;
  uint64_t setup_ns = 0;
  std::vector<Finding> findings;  // by severity, then impact, then rule order
  // Findings that cost less than min_share of the window (hide_below): named
  // under the others, never shown in full, never a --fail-on.
  std::vector<Finding> hidden;
  double min_share = 0;
  // The text and Markdown forms name kernels by their whole demangled name
  // (JSON always does); otherwise by readable_kernel_name.
  bool full_names = false;

  bool fired(std::string_view rule) const;
};

// The share of the window below which a finding is not shown by default: a
// clean run got "[low] launch-bound ... 0.6% of the window".
inline constexpr double kDefaultMinShare = 0.01;
// Moves the findings whose impact_share is below `min_share` to `hidden`.
void hide_below(Analysis& analysis, double min_share);

// The files' timelines are the rules' to read; a timeline whose setup was
// not found yet (Timeline::setup_found: one built in memory) has it found
// first, from its work.
Analysis analyze(std::vector<Timeline> files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges);

// The same, with each rule's finding made by `run` instead of the rule's
// own function: the streamed analysis (streamed_file.h) hands the files'
// timelines without their records, and the tallies it fed.
using RuleRunner = std::function<std::optional<Finding>(const RuleSpec&, const RuleContext&)>;
Analysis analyze(std::vector<Timeline> files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges, const RuleRunner& run);

}  // namespace gprof::findings
