#include "tools/gpuprof/report/report_json.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string_view>

#include "tools/analysis/render/cupti_status.h"
#include "tools/gpuprof/cli/diagnostics.h"

namespace gprof::cli {
namespace {

using nlohmann::ordered_json;

ordered_json file_json(const analysis::FileInfo& file) {
  ordered_json out;
  out["path"] = file.path;
  const pb::FileHeader header = file.header.value_or(pb::FileHeader{});
  out["pid"] = header.pid();
  out["host"] = header.host();
  out["rank"] = header.rank();
  ordered_json argv = ordered_json::array();
  for (const std::string& arg : header.argv()) argv.push_back(arg);
  out["command_line"] = argv;
  out["start_wall_ns"] = header.start_wall_ns();
  ordered_json losses = ordered_json::object();
  if (file.footer) {
    for (const pb::Loss& loss : file.footer->losses())
      if (loss.count() != 0) losses[loss.reason()] = loss.count();
  }
  out["losses"] = losses;
  // Newer footers only, each where the file has it.
  if (file.footer) {
    const pb::Footer& footer = *file.footer;
    if (footer.holds() != 0) {
      out["held"] = {{"count", footer.holds()},
                     {"total_ns", footer.held_ns()},
                     {"max_ns", footer.max_held_ns()}};
    }
    if (footer.max_queue_bytes() != 0) {
      out["queue_memory"] = {{"peak_bytes", footer.peak_queue_bytes()},
                             {"max_bytes", footer.max_queue_bytes()},
                             {"thread_mapped_bytes", footer.thread_mapped_bytes()}};
    }
    if (footer.output_reopens() != 0) out["output_reopens"] = footer.output_reopens();
    if (footer.has_timestamps()) {
      const pb::TimestampCalibration& t = footer.timestamps();
      out["timestamps"] = {{"source", t.source()},
                           {"ticks_per_second", t.ticks_per_second()},
                           {"pairs", t.pairs()},
                           {"max_uncertainty_ns", t.max_uncertainty_ns()},
                           {"max_residual_ns", t.max_residual_ns()}};
    }
  }
  out["ranges"] = {{"push_pop", file.ranges.push_pop},
                   {"start_end", file.ranges.start_end},
                   {"marks", file.ranges.marks},
                   {"unbalanced_pops", file.ranges.unbalanced_pops},
                   {"ends_without_start", file.ranges.ends_without_start},
                   {"open_at_exit", file.ranges.open_at_exit},
                   {"cross_thread", file.ranges.cross_thread}};
  // A Self CUDA of 0 means "no GPU work" only where GPU times were recorded.
  ordered_json gpu;
  gpu["records"] = file.gpu.records;
  gpu["cupti_state"] =
      file.cupti ? ordered_json(pb::CuptiStatus::State_Name(file.cupti->state())) : ordered_json();
  gpu["missing_reason"] =
      file.gpu.records == 0
          ? ordered_json(analysis::missing_gpu_times_reason(file.cupti, file.footer.has_value()))
          : ordered_json();
  out["gpu"] = gpu;
  out["integrity"] = {
      {"damaged", is_damaged(file.status)},
      {"complete", file.status.complete},
      {"bad_frames", file.status.bad_frames},
      {"ignored_bytes", file.status.ignored_bytes},
      {"skipped_records", file.status.skipped_records},
      {"flush_timed_out", file.footer && file.footer->flush_timed_out()},
  };
  return out;
}

ordered_json row_json(const analysis::Row& row, bool grouped) {
  ordered_json out;
  out["name"] = row.name;
  out["kind"] = analysis::row_kind_name(row);
  if (grouped) out["group"] = row.group;
  out["count"] = row.count;
  out["self_cpu_ns"] = row.self_cpu_ns;
  out["cpu_total_ns"] = row.cpu_total_ns;
  out["self_cuda_ns"] = row.self_device_ns;
  out["cuda_total_ns"] = row.device_total_ns;
  // API calls: the GPU work they issued, which CUDA time leaves to ranges.
  out["gpu_time_ns"] = row.issued_device_ns;
  out["cpu_mem_bytes"] = row.cpu_mem;
  out["self_cpu_mem_bytes"] = row.self_cpu_mem;
  out["cuda_mem_bytes"] = row.device_mem;
  out["self_cuda_mem_bytes"] = row.self_device_mem;
  return out;
}

}  // namespace

void write_json_report(std::vector<analysis::Row> rows, const analysis::TableOptions& options,
                       const JsonReportInfo& info, const std::vector<analysis::FileInfo>& files,
                       const analysis::TextSink& write) {
  const analysis::TableTotals totals = analysis::effective_totals(rows, options);
  write_json_report(totals, analysis::table_row_cursor(std::move(rows), options), options, info,
                    files, write);
}

void write_json_report(const analysis::TableTotals& totals, const analysis::RowCursor& next,
                       const analysis::TableOptions& options, const JsonReportInfo& info,
                       const std::vector<analysis::FileInfo>& files,
                       const analysis::TextSink& write) {
  const bool grouped = !options.group_title.empty();

  ordered_json doc;
  doc["schema"] = "gprof.report";
  doc["version"] = kReportJsonVersion;
  doc["view"] = info.view;
  doc["group_by"] = info.group_by;
  doc["sort"] = info.sort;
  doc["limit"] = options.row_limit;
  doc["ranges"] = info.ranges;
  doc["top_level_only"] = info.top_level_only;
  ordered_json file_list = ordered_json::array();
  for (const analysis::FileInfo& file : files) file_list.push_back(file_json(file));
  doc["files"] = file_list;
  doc["totals"] = {{"self_cpu_ns", static_cast<uint64_t>(totals.self_cpu_ns)},
                   {"self_cuda_ns", static_cast<uint64_t>(totals.self_device_ns)}};
  // The rows are written one by one where the document has an empty list:
  // as a whole document, a row per op (--group-by seq --limit 0) took 2.5 KB
  // a row.
  doc["rows"] = ordered_json::array();
  ordered_json notes = ordered_json::array();
  for (size_t start = 0; start < info.notes.size();) {
    const size_t end = info.notes.find('\n', start);
    notes.push_back(info.notes.substr(start, end - start));
    start = end == std::string::npos ? info.notes.size() : end + 1;
  }
  doc["notes"] = notes;
  // Names are bytes from the file: invalid UTF-8 becomes U+FFFD, never an error.
  const auto dump = [](const ordered_json& j) {
    return j.dump(2, ' ', false, ordered_json::error_handler_t::replace);
  };
  const std::string text = dump(doc);
  // Only the document's own key can be this: quotes inside strings are escaped.
  constexpr std::string_view kRows = "\n  \"rows\": [";
  const size_t at = text.find(kRows);
  const size_t after = at + kRows.size();  // at "]" of the empty list
  write(std::string_view(text).substr(0, after));
  std::string item;
  size_t written = 0;
  for (analysis::Row row; next(row);) {
    // A row as the document would print it: two levels in, 4 spaces.
    const std::string text = dump(row_json(row, grouped));
    item.assign(written++ == 0 ? "\n    " : ",\n    ");
    for (char c : text) {
      item += c;
      if (c == '\n') item += "    ";
    }
    write(item);
  }
  write(written == 0 ? std::string_view() : std::string_view("\n  "));
  write(std::string_view(text).substr(after));
  write("\n");
}

std::string render_json_report(std::vector<analysis::Row> rows,
                               const analysis::TableOptions& options, const JsonReportInfo& info,
                               const std::vector<analysis::FileInfo>& files) {
  return analysis::collect_text([&](const analysis::TextSink& write) {
    write_json_report(std::move(rows), options, info, files, write);
  });
}

}  // namespace gprof::cli
