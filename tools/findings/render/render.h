// The three forms of an analysis: a text report for the terminal, Markdown
// for a pull request or a CI summary, and JSON (schema gprof.analyze,
// docs/analyze.md).
#pragma once

#include <string>

#include "tools/findings/analysis.h"

namespace gprof::findings {

inline constexpr int kJsonVersion = 1;

std::string render_text(const Analysis& analysis);
std::string render_markdown(const Analysis& analysis);
std::string render_json(const Analysis& analysis);

// "1.234ms", "64.00 KB", "12.3%", "42": a metric's value as the text forms print it.
std::string metric_text(const Metric& metric);

// "data_loader (92.0%), (no range) (8.0%)": places with their share.
std::string places_text(const std::vector<Place>& places);

// The GPU activities of a finding as the text forms show them: kernels by
// their readable_kernel_name unless analysis.full_names.
std::vector<Place> shown_activities(const Analysis& analysis, const Where& where);

// "10 of 10 steps (ProfilerStep*)"; empty without steps.
std::string steps_text(const Where& where);

// "8.000ms at +12.000ms on device 0 of run.gprof, in 'data_loader'; cudaMemcpy (1.000ms)"
std::string gap_text(const Gap& gap);

// "Not shown, under 1.0% of the window each: launch-bound (0.6%). --min-share 0 shows them."
std::string hidden_line(const Analysis& analysis);

}  // namespace gprof::findings
