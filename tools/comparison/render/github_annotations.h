// `gpuprof diff --github`: one GitHub Actions workflow command per failure,
// "::error title=gprof regression::MESSAGE", so that the job's summary and
// the PR checks show each regression.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

// The message with the characters workflow commands reserve (% CR LF)
// percent-encoded, as GitHub's toolkit escapes command data.
std::string escape_workflow_data(std::string_view text);

// GitHub Actions shows at most 10 error annotations a step.
inline constexpr size_t kMaxAnnotations = 10;

// One line per failed row or total, with each rule it failed ("kernel k:
// self_cuda:+10%: ...; gpu.count:+0%: ..."), "" when nothing failed; beyond
// kMaxAnnotations of them, the first kMaxAnnotations - 1 and a line that
// counts the rest.
std::string render_github_annotations(const Comparison& comparison);

}  // namespace gprof::comparison
