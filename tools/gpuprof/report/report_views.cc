// The views of `gpuprof report`: the key-averages table and its parts (ops,
// ranges, api, kernels) with what belongs under it, and the memory and
// launches tables.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/launches.h"
#include "tools/analysis/aggregate/ops_files.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/aggregate/transfers.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/read/visitor_chain.h"
#include "tools/analysis/render/cell_table.h"
#include "tools/analysis/render/large_table.h"
#include "tools/analysis/render/launch_table.h"
#include "tools/analysis/render/range_text.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/table_csv.h"
#include "tools/analysis/render/table_markdown.h"
#include "tools/analysis/render/throughput_text.h"
#include "tools/analysis/render/transfer_table.h"
#include "tools/analysis/render/views.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/report/report_json.h"
#include "tools/gpuprof/report/report_options.h"
#include "tools/gpuprof/report/view_streams.h"

namespace gprof::cli {
namespace {

// "GPUs: 0: NVIDIA H100 ... (sm_90, 132 SMs, 79.19 GB, PCI ...)": the devices the
// files' processes saw, each description once; empty when none was recorded.
std::string devices_line(const std::vector<analysis::FileInfo>& files) {
  std::vector<std::string> seen;
  for (const analysis::FileInfo& file : files) {
    if (!file.header) continue;
    for (const pb::Device& d : file.header->devices()) {
      std::string text = analysis::describe_device(d);
      if (std::find(seen.begin(), seen.end(), text) == seen.end()) seen.push_back(std::move(text));
    }
  }
  if (seen.empty()) return {};
  return fmt::format("GPUs: {}\n", fmt::join(seen, "; "));
}

// A Python interpreter's file: where PyTorch's hints apply.
bool is_python(const analysis::FileInfo& file) {
  if (!file.header) return false;
  const std::string& exe = file.header->exe();
  const std::string_view name = std::string_view(exe).substr(exe.rfind('/') + 1);
  return name.starts_with("python");
}

// torch's table() is most often sorted by CPU total; a launch by its GPU time;
// kernels, which have no CPU time, by CUDA total.
constexpr const char* kDefaultOpsSort = "cpu_time_total";
constexpr const char* kDefaultKernelsSort = "cuda_time_total";
constexpr const char* kDefaultLaunchesSort = "gpu_avg";

template <typename Names>
std::string join(const Names& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

int usage_error(const std::string& message) {
  fmt::print(stderr, "gpuprof: error: {}\n", message);
  return kExitUsage;
}

std::optional<analysis::TimeUnit> time_unit(const ReportOptions& options) {
  if (options.time_unit.empty()) return std::nullopt;
  return analysis::parse_time_unit(options.time_unit);
}

// What the table says when it has no rows.
// Lines under a Markdown table: each its own paragraph (consecutive lines
// would run together), their text escaped like the cells ('*' of a glob).
std::string markdown_paragraphs(const std::string& lines) {
  std::string out;
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    if (end > start)
      out += "\n" + analysis::escape_markdown(std::string_view(lines).substr(start, end - start)) +
             "\n";
    start = end + 1;
  }
  return out;
}

std::string no_rows(const ReportOptions& options, analysis::View view, bool any_rows) {
  if (!any_rows && !options.ranges.empty())
    return "Nothing inside ranges matching " + quoted_list(options.ranges) + ".\n";
  switch (view) {
    case analysis::View::kRanges:
      return "No NVTX ranges.\n";
    case analysis::View::kApi:
      return "No API calls.\n";
    case analysis::View::kKernels:
      return "No kernels.\n";
    default:
      return "No records.\n";
  }
}

// Where the scope of --range comes from for the views that do not build the
// key-averages rows themselves: only built when there is a filter.
struct ScopeOnly {
  explicit ScopeOnly(const ReportOptions& options)
      : visitor(scratch, analysis::OpsOptions{analysis::GroupBy::kName, options.ranges, false}) {}
  analysis::KeyAverages scratch;
  analysis::OpsRowsVisitor visitor;
};

// One file of the memory or launches view (read on a thread of its own with
// --jobs): streamed when it can be (view_streams.h), else the view's visitor
// on the loader, after the --range scope when there is one.
template <typename View>
struct ScopedWork : analysis::FileWork {
  ScopedWork(const ReportOptions& options, unsigned decoders)
      : stream(!analysis::in_memory_asked()), ranges(options.ranges), decoders(decoders) {
    if (!options.ranges.empty()) scope.emplace(options);
    std::vector<analysis::ProfileVisitor*> visitors;
    if (scope) visitors.push_back(&scope->visitor);
    out = View(scope ? &scope->visitor : nullptr);
    visitors.push_back(&out);
    chain.emplace(std::move(visitors));
  }
  analysis::ProfileVisitor& visitor() override { return *chain; }
  std::optional<analysis::FileInfo> read(uint32_t /*file*/, const std::string& path) override {
    if (!stream) return std::nullopt;
    std::optional<analysis::FileInfo> info =
        stream_view_file(path, decoders, ranges, out, range_matched, in_memory_because);
    if (!info) out = View(scope ? &scope->visitor : nullptr);  // read again in memory
    return info;
  }

  const bool stream;
  const std::vector<std::string> ranges;
  const unsigned decoders;
  std::string in_memory_because;  // why a file was not streamed
  bool range_matched = false;     // streamed: whether --range matched a range of the file
  std::optional<ScopeOnly> scope;
  View out;
  std::optional<analysis::VisitorChain> chain;
};

// The files into `view`, several at once (--jobs), merged in file order;
// the cores the files leave idle decode frames (as ops_files.cc). The
// "read in memory" notes are printed once every file has been read.
// `range_matched`: whether --range matched a range of any file.
template <typename View>
std::vector<analysis::FileInfo> read_view_files(const ReportOptions& options, View& view,
                                                bool& range_matched) {
  const unsigned decoders = analysis::decoders_per_file(options.jobs, options.files.size());
  std::vector<std::pair<std::string, std::string>> in_memory;
  std::vector<analysis::FileInfo> files = analysis::load_files_parallel(
      options.files, options.jobs,
      [&](uint32_t) { return std::make_unique<ScopedWork<View>>(options, decoders); },
      [&](uint32_t, analysis::FileWork& work, const analysis::FileInfo& info) {
        auto& file = static_cast<ScopedWork<View>&>(work);
        view.merge(std::move(file.out));
        // In memory, the ranges in scope are rows of the scope's own table.
        range_matched = range_matched || file.range_matched ||
                        (file.scope && file.scope->scratch.row_count() != 0);
        if (!file.in_memory_because.empty())
          in_memory.emplace_back(info.path, file.in_memory_because);
      });
  print_in_memory_notes(in_memory);
  return files;
}

// As diff: a --range that selects nothing is a mistake (a typo, a file
// without NVTX ranges), not an empty table.
int range_matches_nothing(const ReportOptions& options) {
  fmt::print(stderr, "gpuprof: error: --range {} matches no range\n",
             fmt::join(options.ranges, ", "));
  return kExitUsage;
}

}  // namespace

int run_key_averages_view(const ReportOptions& options) {
  const analysis::View view = *analysis::parse_view(options.view);
  const std::string sort = !options.sort.empty()              ? options.sort
                           : view == analysis::View::kKernels ? kDefaultKernelsSort
                                                              : kDefaultOpsSort;
  analysis::TableOptions table;
  table.sort = analysis::parse_sort_key(sort);
  if (!table.sort) {
    return usage_error(fmt::format("--sort: '{}' is not a column of the {} view; keys: {}", sort,
                                   options.view, join(analysis::sort_key_names())));
  }
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  table.full_names = options.full_names;
  table.time_unit = time_unit(options);
  const analysis::GroupBy group_by = *analysis::parse_group_by(options.group_by);
  table.group_title = std::string(analysis::group_title(group_by));
  table.issued_columns = view == analysis::View::kApi;
  table.cpu_columns = view != analysis::View::kKernels;

  // The lines under the table count what --range selects, as the rows do.
  analysis::OpsFiles ops = analysis::aggregate_ops_files(
      options.files, analysis::OpsFilesOptions{
                         analysis::OpsOptions{group_by, options.ranges, options.top_level_only},
                         options.steps, options.jobs});
  const std::vector<analysis::FileInfo>& files = ops.files;
  if (!check_files(files)) return kExitFileError;
  print_in_memory_notes(ops.in_memory);

  // As torch's table: the memory columns with --profile-memory only. CSV is
  // read by programs: it keeps them whenever the run moved memory.
  const bool csv = options.format == "csv";
  table.profile_memory = options.profile_memory || (csv && ops.saw_memory);
  // The default sort, by CPU total, ties the GPU activities (no CPU time) at
  // the bottom in the order first seen: among themselves, by CUDA total (the
  // table's sort is stable).
  const std::optional<analysis::SortKey> then_by =
      options.sort.empty() ? std::optional(analysis::SortKey::kDeviceTotal) : std::nullopt;
  // Shares of everything in scope, whichever part the view shows
  // (docs/columns.md): with --top-level-only too, which keeps only the rows
  // that hold the others. A table of more rows than memory holds (a row per
  // op, --group-by seq) is read as it is printed (large_table.h).
  const analysis::LargeTable shown =
      analysis::read_table(ops.rows, table, {view, options.top_level_only, then_by});
  table.totals = shown.summary.totals;
  if (!options.ranges.empty() && !shown.any_rows) return range_matches_nothing(options);
  // The lines under the table: range problems, steps and GPU busy, why GPU
  // times are missing, losses.
  std::string lines;
  analysis::RangeCounts ranges;
  for (const analysis::FileInfo& file : files) ranges += file.ranges;
  const std::string problems = analysis::describe_range_problems(ranges);
  if (!problems.empty()) lines += fmt::format("Ranges: {}\n", problems);
  // What a torch.profiler user misses in a Python run without annotations,
  // and why a column they asked for is empty.
  const bool any_range = ranges.push_pop + ranges.start_end != 0;
  if (!any_range && (view == analysis::View::kOps || view == analysis::View::kRanges) &&
      shown.any_rows && std::any_of(files.begin(), files.end(), is_python))
    lines +=
        "Ranges: none recorded, so no op rows: PyTorch's ops are rows under "
        "torch.autograd.profiler.emit_nvtx(); name your own code with torch.cuda.nvtx.range() "
        "or nvtx.annotate().\n";
  if (group_by == analysis::GroupBy::kInputShape && !shown.any_group)
    lines +=
        "Input Shapes: no range carried sizes; PyTorch writes them with "
        "emit_nvtx(record_shapes=True).\n";
  const std::optional<uint64_t> samples =
      options.samples_per_step ? std::optional<uint64_t>(options.samples_per_step) : std::nullopt;
  lines += analysis::render_throughput(ops.throughput, samples, table.time_unit);
  lines += devices_line(files);
  if (shown.memory_row)
    lines += "[memory]: allocations and frees made outside any range (torch's [memory] row).\n";
  // In scope: with --range, what the selected rows moved.
  const bool moved_memory = options.ranges.empty() ? ops.saw_memory : shown.moved_memory;
  if (moved_memory && !table.profile_memory && options.format != "json")
    lines +=
        "Memory: the run allocated or freed memory; --profile-memory shows the memory "
        "columns.\n";
  const std::string notes = table_notes(files);
  // Machine-readable formats: only the rows on stdout (JSON keeps the lines
  // too); the notes go to stderr.
  if (options.format == "csv" || options.format == "json") {
    if (options.format == "csv") {
      analysis::write_csv_table(shown.summary, shown.rows, table, analysis::write_stdout);
    } else {
      write_json_report(shown.summary.totals, shown.rows, table,
                        JsonReportInfo{options.view, std::string(analysis::group_by_name(group_by)),
                                       std::string(analysis::sort_key_name(*table.sort)),
                                       options.ranges, options.top_level_only, lines + notes},
                        files, analysis::write_stdout);
    }
    print_table_notes(stderr, files);
    return kExitOk;
  }
  if (shown.summary.rows == 0) lines = no_rows(options, view, shown.any_rows) + lines;
  if (options.format == "md")
    analysis::write_markdown_table(shown.summary, shown.rows, table, analysis::write_stdout);
  else
    analysis::write_table(shown.summary, shown.rows, table, analysis::write_stdout);
  lines += notes;
  fmt::print("{}", options.format == "md" ? markdown_paragraphs(lines) : lines);
  return kExitOk;
}

// The launches and memory views in md, csv or json: only the table on stdout
// for csv and json (notes to stderr), as the key-averages views do.
static int print_cells(const analysis::CellTable& cells, const ReportOptions& options,
                       const std::vector<analysis::FileInfo>& files) {
  if (options.format == "md") {
    fmt::print("{}", analysis::render_cells_markdown(cells));
    print_table_notes(stdout, files);
    return kExitOk;
  }
  if (options.format == "csv") {
    fmt::print("{}", analysis::render_cells_csv(cells));
  } else {
    nlohmann::ordered_json doc;
    doc["view"] = options.view;
    doc["rows"] = nlohmann::ordered_json::array();
    for (const std::vector<std::string>& row : cells.raw) {
      nlohmann::ordered_json j;
      for (size_t i = 0; i < row.size(); ++i) {
        if (!cells.numeric[i])
          j[cells.keys[i]] = row[i];
        else if (row[i].find('.') != std::string::npos)
          j[cells.keys[i]] = std::stod(row[i]);
        else
          j[cells.keys[i]] = std::stoll(row[i]);
      }
      doc["rows"].push_back(std::move(j));
    }
    doc["lines"] = cells.footer;
    fmt::print("{}\n", doc.dump(2));
  }
  print_table_notes(stderr, files);
  return kExitOk;
}

int run_memory_view(const ReportOptions& options) {
  analysis::TransferTableOptions table;
  if (!options.sort.empty()) {
    const auto sort = analysis::parse_transfer_sort_key(options.sort);
    if (!sort) {
      return usage_error(fmt::format("--sort: '{}' is not a column of the memory view; keys: {}",
                                     options.sort, join(analysis::transfer_sort_key_names())));
    }
    table.sort = *sort;
  }
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  table.time_unit = time_unit(options);

  analysis::TransfersVisitor transfers;
  bool range_matched = false;
  const std::vector<analysis::FileInfo> files = read_view_files(options, transfers, range_matched);
  if (!check_files(files)) return kExitFileError;
  if (!range_matched && !options.ranges.empty()) return range_matches_nothing(options);
  if (options.format != "table")
    return print_cells(analysis::transfer_cells(transfers.finish(), table), options, files);
  const std::string text = analysis::render_transfer_table(transfers.finish(), table);
  fmt::print("{}", text.empty() ? "No copies or sets with GPU records.\n" : text);
  print_table_notes(stdout, files);
  return kExitOk;
}

int run_launches_view(const ReportOptions& options) {
  const std::string sort = options.sort.empty() ? kDefaultLaunchesSort : options.sort;
  analysis::LaunchTableOptions table;
  table.sort = analysis::parse_launch_sort_key(sort);
  if (!table.sort) {
    return usage_error(fmt::format("--sort: '{}' is not a column of the launches view; keys: {}",
                                   sort, join(analysis::launch_sort_key_names())));
  }
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  table.full_names = options.full_names;
  table.time_unit = time_unit(options);

  analysis::LaunchesVisitor launches;
  bool range_matched = false;
  const std::vector<analysis::FileInfo> files = read_view_files(options, launches, range_matched);
  if (!check_files(files)) return kExitFileError;
  if (!range_matched && !options.ranges.empty()) return range_matches_nothing(options);
  std::vector<analysis::LaunchRow> rows = launches.finish();
  if (options.format != "table")
    return print_cells(analysis::launch_cells(rows, table), options, files);
  const bool negative_queue =
      std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.queue.min < 0; });
  const std::string text = analysis::render_launch_table(std::move(rows), table);
  fmt::print("{}", text.empty() ? "No API call with GPU work.\n" : text);
  if (negative_queue)
    fmt::print(
        "Queue time < 0: the GPU started the work before the call returned (queue time is GPU "
        "start minus the call's end; a launch returns after enqueueing, often after its kernel "
        "began; a synchronous call such as cudaMemcpy returns after its copy ended, so its queue "
        "time is about minus its GPU time).\n");
  print_table_notes(stdout, files);
  return kExitOk;
}

}  // namespace gprof::cli
