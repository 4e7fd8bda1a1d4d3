// The gate: which rules fail on which rows and totals, and what each row's
// status is (docs/diff.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tools/comparison/compare/noise.h"
#include "tools/comparison/compare/row_match.h"
#include "tools/comparison/compare/rule.h"

namespace gprof::comparison {

struct GateOptions {
  std::vector<Rule> rules;
  // Rows whose time (the largest median of Self CUDA, CUDA total and CPU
  // total on either side) is below this never fail.
  double min_time_ns = 0;
};

struct Failure {
  size_t rule;                // index into GateOptions::rules
  std::optional<size_t> row;  // index into Matched::rows; nullopt: a total
  // The rule's metric over the runs of each side (# of Calls for new and
  // vanished); the medians are what the rule compared.
  Spread base;
  Spread now;
};

enum class Status : uint8_t {
  kRegression,  // on both sides, and a rule failed on it
  kNew,         // only in NEW
  kVanished,    // only in BASE
  kChanged,     // some metric's median differs
  kSame,
};
// "regression", "new", "vanished", "changed", "same".
std::string_view status_name(Status status);

struct RowVerdict {
  Status status = Status::kSame;
  bool failed = false;  // some rule failed on it (new and vanished rows too)
  // Changed, but every metric that changed did so inside the runs' spread.
  bool within_noise = false;
  bool below_min_time = false;
};

struct GateResult {
  // By rule, then by the size of the change, largest first.
  std::vector<Failure> failures;
  std::vector<RowVerdict> rows;  // as Matched::rows
  std::vector<bool> rule_failed;

  size_t failed_rules() const;
  bool regression() const { return !failures.empty(); }
};

// new > base·(1 + percent/100) and new > base; base 0 and new > 0 is an
// infinite increase. For a negative base (memory) relative to its size.
bool exceeds(double base, double now, double percent);

// The time by which --min-time judges a row.
double row_time(const MatchedRow& row);

// Whether `rule` is judged at all: a "repeated." rule only when the runs
// allow a noise test that reaches its alpha.
bool judged(const Rule& rule, const NoiseTest& noise);

GateResult run_gate(const Matched& matched, const GateOptions& options, const NoiseTest& noise);

}  // namespace gprof::comparison
