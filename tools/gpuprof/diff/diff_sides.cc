#include "tools/gpuprof/diff/diff_sides.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iterator>
#include <set>

#include "tools/comparison/runs/json_baseline.h"
#include "tools/comparison/runs/sidecar_run.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"

namespace gprof::cli {
namespace {

// The file's text when it is a JSON document; nullopt for anything else (a
// sidecar file, or one the sidecar reader will explain it cannot open).
std::optional<std::string> json_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // The start decides, so that a sidecar file (or /dev/zero) is not read whole.
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (!comparison::looks_like_json(text)) return std::nullopt;
  text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return text;
}

// Records of every kind the run's files delivered: none means nothing to
// compare (a file cut before its first records, a process that did no CUDA
// work), which must not pass for "every row vanished" or "no change".
uint64_t records_in(const std::vector<analysis::FileInfo>& files) {
  uint64_t records = 0;
  for (const analysis::FileInfo& file : files)
    records += file.status.records + file.status.gpu_records + file.status.range_events;
  return records;
}

std::string ranges_text(const std::vector<std::string>& ranges) {
  return ranges.empty() ? "(none)" : quoted_list(ranges);
}

}  // namespace

// Rows keyed by a process or thread id never match across runs: ids differ
// from run to run, and every row would be new on one side and vanished on
// the other. A rank is the same from run to run, when the launcher set one.
std::optional<std::string> unmatchable_group(analysis::GroupBy group_by) {
  if (group_by == analysis::GroupBy::kThread)
    return "--group-by thread keys rows by thread id, which differs from run to run, so no row "
           "would match; compare per rank with --group-by rank, or by name";
  if (group_by == analysis::GroupBy::kProcess)
    return "--group-by process keys rows by process id, which differs from run to run, so no "
           "row would match; record with RANK set and compare with --group-by rank";
  return std::nullopt;
}

// Each run of `arguments` (expand_run_list), with a line on stderr for every
// problem; nullopt when some run cannot be used.
std::optional<LoadedSide> load_side(const std::vector<std::string>& arguments,
                                    const std::string& group_by, const comparison::RowOptions& rows,
                                    InMemoryNotes& notes) {
  const Runs runs = expand_run_list(arguments);
  if (!report_input_errors(runs.errors)) return std::nullopt;
  LoadedSide side;
  side.info.argument = fmt::format("{}", fmt::join(arguments, " "));
  side.info.runs = runs.runs;
  bool ok = true;
  for (const std::vector<std::string>& files : runs.runs) {
    const std::optional<std::string> text =
        files.size() == 1 ? json_text(files.front()) : std::nullopt;
    if (!text) {
      comparison::SidecarRun run = comparison::load_sidecar_run(files, rows);
      const bool readable = check_files(run.files);
      ok = readable && ok;
      print_in_memory_notes(run.in_memory, &notes);
      print_table_notes(stderr, run.files);
      if (readable && records_in(run.files) == 0) {
        print_error(files.front(), "no records: nothing to compare");
        ok = false;
      }
      if (rows.group_by == analysis::GroupBy::kRank)
        for (const analysis::FileInfo& file : run.files)
          if (readable && (!file.header || file.header->rank().empty())) {
            print_error(file.path,
                        "no rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK and SLURM_PROCID were "
                        "unset when it was recorded): --group-by rank would key its rows by "
                        "process id, which differs from run to run");
            ok = false;
          }
      uint64_t gpu_records = 0;
      for (const analysis::FileInfo& file : run.files) gpu_records += file.gpu.records;
      side.runs.push_back(std::move(run.rows));
      side.processes.push_back(files.size());
      side.gpu_records.push_back(gpu_records);
      continue;
    }
    const std::string& path = files.front();
    comparison::JsonBaseline json = comparison::parse_json_baseline(*text);
    if (!json.rows) {
      print_error(path, json.error);
      ok = false;
      continue;
    }
    if (analysis::parse_group_by(json.group_by) != analysis::parse_group_by(group_by)) {
      print_error(path, fmt::format("its rows are grouped by {}, this diff by {}; run the diff "
                                    "with --group-by {}",
                                    json.group_by, group_by, json.group_by));
      ok = false;
      continue;
    }
    if (!json.ranges) {
      if (!rows.ranges.empty())
        print_warning(path, "--range applies to sidecar files; a JSON report is compared as it is");
    } else if (*json.ranges != rows.ranges) {
      print_error(path, fmt::format("its rows are cut by --range {}, this diff's by {}; the "
                                    "diff needs the same --range as the report",
                                    ranges_text(*json.ranges), ranges_text(rows.ranges)));
      ok = false;
      continue;
    }
    if (json.rows->rows.empty()) {
      print_error(path,
                  "the report has no rows: nothing to compare (a run without records, or a "
                  "--range that matched nothing?)");
      ok = false;
      continue;
    }
    side.info.json_report = runs.runs.size() == 1;
    // A report written before it counted GPU records: GPU time in its totals
    // says it had some (none says nothing: a CPU-side run, or a window).
    std::optional<uint64_t> gpu_records = json.gpu_records;
    if (!gpu_records &&
        json.rows->totals[static_cast<size_t>(comparison::TotalMetric::kSelfCuda)] > 0)
      gpu_records = 1;
    side.runs.push_back(std::move(*json.rows));
    side.processes.push_back(json.processes);
    side.gpu_records.push_back(gpu_records);
  }
  if (!ok) return std::nullopt;
  return side;
}

bool no_rows(const LoadedSide& side) {
  for (const comparison::RunRows& run : side.runs)
    if (!run.rows.empty()) return false;
  return true;
}

// Runs that add up different numbers of processes compare sums of unlike
// things: most often a JSON baseline made from several repeated runs at once
// (report adds its files up), which would let any NEW run pass.
std::optional<std::string> unlike_runs(const LoadedSide& base, const LoadedSide& now) {
  std::set<size_t> counts;
  for (const LoadedSide* side : {&base, &now})
    for (size_t processes : side->processes)
      if (processes != 0) counts.insert(processes);
  if (counts.size() <= 1) return std::nullopt;
  const auto describe = [](const LoadedSide& side) {
    std::vector<std::string> out;
    for (size_t i = 0; i < side.runs.size(); ++i)
      out.push_back(side.processes[i] == 0 ? "?" : fmt::format("{}", side.processes[i]));
    return fmt::format("{}", fmt::join(out, ", "));
  };
  return fmt::format(
      "the runs add up different numbers of processes (per run, BASE: {}; NEW: {}), so their "
      "sums do not compare. A run is one process's file or one directory of a job's files "
      "(ranks); a JSON report of several repeated runs adds them up: keep a report per run "
      "and give them with --base a.json b.json ...",
      describe(base), describe(now));
}

std::optional<std::string> gpu_data_mismatch(const LoadedSide& base, const LoadedSide& now) {
  const auto count = [](const LoadedSide& side, bool with) {
    size_t n = 0;
    for (const std::optional<uint64_t>& records : side.gpu_records)
      if (records && (*records > 0) == with) ++n;
    return n;
  };
  const auto describe = [](const char* name, const LoadedSide& side, size_t without) {
    return without == side.runs.size() ? fmt::format("{} has no GPU records", name)
                                       : fmt::format("{} of the {} runs of {} have no GPU records",
                                                     without, side.runs.size(), name);
  };
  const size_t base_with = count(base, true), base_without = count(base, false);
  const size_t now_with = count(now, true), now_without = count(now, false);
  std::string which;
  if (now_without > 0 && (base_with > 0 || now_with > 0))
    which = describe("NEW", now, now_without);
  else if (base_without > 0 && (now_with > 0 || base_with > 0))
    which = describe("BASE", base, base_without);
  else
    return std::nullopt;
  return fmt::format(
      "{} while GPU times are compared: Self CUDA would fall to 0 and pass any GPU regression. "
      "The run was recorded without CUPTI (no driver, GPROF_CUPTI=0, another tool holding it): "
      "see `gpuprof info`; record it again with CUPTI, or compare CPU-side runs on both sides",
      which);
}

}  // namespace gprof::cli
