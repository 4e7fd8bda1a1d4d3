// The sentences every output format shares: what failed, the verdict, the
// rules, the sides.
#pragma once

#include <string>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

// What a failure is about: "kernel square(float*, int)" or "Self CUDA time total".
std::string failure_subject(const Comparison& comparison, const Failure& failure);

// How the values moved: "4.000us -> 6.000us (+2.000us, +50.0%)", "not in BASE,
// 3 calls in NEW", "2 calls in BASE, not in NEW".
std::string failure_values(const Comparison& comparison, const Failure& failure,
                           const std::string& arrow);

// "SUBJECT: RULE: VALUES", one line of the text verdict.
std::string failure_line(const Comparison& comparison, const Failure& failure,
                         const std::string& arrow);

// "REGRESSION: 2 rules failed" or "OK: no rule failed (5 rules)".
std::string verdict_line(const Comparison& comparison);

// "total.self_cuda:+5% ..." and " (the default gate)" (" (the strict gate)"
// with --rules strict) when no --fail-on was given, "; repeated.total.self_cpu:+10%
// not judged (...)" for a rule the runs cannot judge, and "; rows under 1.000ms never fail" with
// --min-time.
std::string rules_line(const Comparison& comparison);

// "training.gprof (1 run)", "runs/ (3 runs)", "baseline.json (JSON report)".
std::string side_line(const SideInfo& side);

}  // namespace gprof::comparison
