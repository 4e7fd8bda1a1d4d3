// What `gpuprof report` was asked for, as parsed by cmd_report.cc and run by
// report_views.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gprof::cli {

struct ReportOptions {
  std::vector<std::string> files;
  std::string view = "ops";
  std::string format = "table";  // table, md, csv, json (key-averages views only)
  std::string sort;              // empty: the view's default
  size_t limit = 100;
  std::string time_unit;  // empty: auto-scale
  size_t name_width = 55;
  bool full_names = false;  // kernels by their whole demangled name
  std::string group_by = "name";
  std::vector<std::string> ranges;  // --range patterns
  bool top_level_only = false;
  bool profile_memory = false;
  std::vector<std::string> steps;  // --step patterns; empty: the defaults
  uint64_t samples_per_step = 0;   // 0: not given
  bool quiet = false;              // no progress on the terminal
  unsigned jobs = 0;               // files read at once; 0: one per hardware thread
};

// Each returns the exit status; usage errors found only once the view is
// known (a sort key of another view) print their message and return 2.
int run_key_averages_view(const ReportOptions& options);
int run_memory_view(const ReportOptions& options);
int run_launches_view(const ReportOptions& options);

}  // namespace gprof::cli
