// The named sets of rules (--rules NAME, docs/diff.md): "default", the gate
// without --fail-on, and "strict", the gate before it, which also fails rows
// that appeared or vanished.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/comparison/compare/rule.h"

namespace gprof::comparison {

// A regression is what makes the run slower: its GPU and CPU totals, and
// rows found on both sides taking more GPU time (their own, or for a range,
// a ProfilerStep#N step among them, all the GPU work inside it) or launched
// more often. A row that appeared or vanished (a renamed kernel, a copy made
// another way) is information: what it costs shows in the totals, which fail
// when they grow.
// The CPU total is judged only with several runs a side ("repeated."):
// from one run to the next it moves by more than any threshold would allow.
inline constexpr const char* kDefaultRules =
    "total.self_cuda:+5 repeated.total.self_cpu:+10 matched.self_cuda:+10 "
    "matched.range.cuda_total:+10 matched.gpu.count:+0";
// Any GPU time more, from nothing too, and any kernel, copy or set that
// appeared or vanished: for a job that must see every change of what runs.
inline constexpr const char* kStrictRules =
    "self_cuda:+10 total.self_cuda:+5 gpu.count:+0 gpu.new gpu.vanished";

inline constexpr const char* kDefaultRuleSet = "default";

// "default, strict".
std::string rule_set_names();

// The rules of the set named `name`; nullopt for an unknown name.
std::optional<std::vector<Rule>> rule_set(std::string_view name);

std::vector<Rule> default_rules();

}  // namespace gprof::comparison
