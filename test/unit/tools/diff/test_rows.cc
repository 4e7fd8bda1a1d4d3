#include "test/unit/tools/diff/test_rows.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <utility>

namespace gprof::test {

using diff::Metric;

diff::RunRow gpu_row(const std::string& kind, const std::string& name, double count, double ns) {
  diff::RunRow row{diff::RowKey{kind, name, ""}, {}};
  diff::at(row.values, Metric::kCount) = count;
  diff::at(row.values, Metric::kSelfCuda) = ns;
  diff::at(row.values, Metric::kCudaTotal) = ns;
  return row;
}

diff::RunRow cpu_row(const std::string& kind, const std::string& name, double count, double cpu_ns,
                     double cuda_ns) {
  diff::RunRow row{diff::RowKey{kind, name, ""}, {}};
  diff::at(row.values, Metric::kCount) = count;
  diff::at(row.values, Metric::kSelfCpu) = cpu_ns;
  diff::at(row.values, Metric::kCpuTotal) = cpu_ns;
  diff::at(row.values, Metric::kSelfCuda) = cuda_ns;
  diff::at(row.values, Metric::kCudaTotal) = cuda_ns;
  return row;
}

diff::RunRows run_of(std::vector<diff::RunRow> rows) {
  diff::RunRows run;
  run.totals = diff::totals_of(rows);
  run.rows = std::move(rows);
  return run;
}

std::vector<std::string> rule_set_texts(const char* set) {
  std::vector<std::string> out;
  std::istringstream words(set);
  for (std::string word; words >> word;) out.push_back(word);
  return out;
}

diff::Comparison compare_runs(const std::vector<diff::RunRows>& base,
                              const std::vector<diff::RunRows>& now,
                              const std::vector<std::string>& rules, double min_time_ns) {
  diff::CompareOptions options;
  options.rule_set = rules.empty() ? diff::kDefaultRuleSet : "";
  options.rules = rules.empty() ? diff::default_rules() : std::vector<diff::Rule>{};
  for (const std::string& text : rules) {
    const diff::ParsedRule parsed = diff::parse_rule(text);
    INFO(text << ": " << parsed.error);
    REQUIRE(parsed.rule);
    options.rules.push_back(*parsed.rule);
  }
  options.min_time_ns = min_time_ns;
  diff::SideInfo base_side{"base.gprof", {}, false};
  diff::SideInfo new_side{"new.gprof", {}, false};
  for (size_t i = 0; i < base.size(); ++i) base_side.runs.push_back({"base-" + std::to_string(i)});
  for (size_t i = 0; i < now.size(); ++i) new_side.runs.push_back({"new-" + std::to_string(i)});
  return diff::compare(base_side, new_side, base, now, options);
}

}  // namespace gprof::test
