// `gpuprof diff --github`: one GitHub Actions workflow command per failure,
// "::error title=gprof regression::MESSAGE", so that the job's summary and
// the PR checks show each regression.
#pragma once

#include <string>
#include <string_view>

#include "tools/diff/comparison.h"

namespace gprof::diff {

// The message with the characters workflow commands reserve (% CR LF)
// percent-encoded, as GitHub's toolkit escapes command data.
std::string escape_workflow_data(std::string_view text);

// One line per failure; "" when nothing failed.
std::string render_github_annotations(const Comparison& comparison);

}  // namespace gprof::diff
