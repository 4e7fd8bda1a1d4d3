#include "test/unit/tools/comparison/test_rows.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <utility>

namespace gprof::test {

using comparison::Metric;

comparison::RunRow gpu_row(const std::string& kind, const std::string& name, double count,
                           double ns) {
  comparison::RunRow row{comparison::RowKey{kind, name, ""}, {}};
  comparison::at(row.values, Metric::kCount) = count;
  comparison::at(row.values, Metric::kSelfCuda) = ns;
  comparison::at(row.values, Metric::kCudaTotal) = ns;
  return row;
}

comparison::RunRow cpu_row(const std::string& kind, const std::string& name, double count,
                           double cpu_ns, double cuda_ns) {
  comparison::RunRow row{comparison::RowKey{kind, name, ""}, {}};
  comparison::at(row.values, Metric::kCount) = count;
  comparison::at(row.values, Metric::kSelfCpu) = cpu_ns;
  comparison::at(row.values, Metric::kCpuTotal) = cpu_ns;
  comparison::at(row.values, Metric::kSelfCuda) = cuda_ns;
  comparison::at(row.values, Metric::kCudaTotal) = cuda_ns;
  return row;
}

comparison::RunRows run_of(std::vector<comparison::RunRow> rows) {
  comparison::RunRows run;
  run.totals = comparison::totals_of(rows);
  run.rows = std::move(rows);
  return run;
}

std::vector<std::string> rule_set_texts(const char* set) {
  std::vector<std::string> out;
  std::istringstream words(set);
  for (std::string word; words >> word;) out.push_back(word);
  return out;
}

comparison::Comparison compare_runs(const std::vector<comparison::RunRows>& base,
                                    const std::vector<comparison::RunRows>& now,
                                    const std::vector<std::string>& rules, double min_time_ns) {
  comparison::CompareOptions options;
  options.rule_set = rules.empty() ? comparison::kDefaultRuleSet : "";
  options.rules = rules.empty() ? comparison::default_rules() : std::vector<comparison::Rule>{};
  for (const std::string& text : rules) {
    const comparison::ParsedRule parsed = comparison::parse_rule(text);
    INFO(text << ": " << parsed.error);
    REQUIRE(parsed.rule);
    options.rules.push_back(*parsed.rule);
  }
  options.min_time_ns = min_time_ns;
  comparison::SideInfo base_side{"base.gprof", {}, false};
  comparison::SideInfo new_side{"new.gprof", {}, false};
  for (size_t i = 0; i < base.size(); ++i) base_side.runs.push_back({"base-" + std::to_string(i)});
  for (size_t i = 0; i < now.size(); ++i) new_side.runs.push_back({"new-" + std::to_string(i)});
  return comparison::compare(base_side, new_side, base, now, options);
}

}  // namespace gprof::test
