#include "tools/gpuprof/cli/diagnostics.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/analysis/render/cupti_status.h"
#include "tools/analysis/render/footer_text.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/info/file_state.h"

namespace gprof::cli {

void print_error(std::string_view path, std::string_view message) {
  erase_progress_line();
  fmt::print(stderr, "gpuprof: error: {}: {}\n", path, message);
}

void print_warning(std::string_view path, std::string_view message) {
  erase_progress_line();
  fmt::print(stderr, "gpuprof: warning: {}: {}\n", path, message);
}

bool is_damaged(const ReadStatus& status) {
  return !status.complete || status.bad_frames > 0 || status.ignored_bytes > 0 ||
         status.skipped_records > 0 || !status.error.empty();
}

bool check_files(const std::vector<analysis::FileInfo>& files) {
  bool all_opened = true;
  for (const analysis::FileInfo& file : files) {
    if (!file.status.opened) {
      print_error(file.path, file.status.error);
      all_opened = false;
      continue;
    }
    if (is_damaged(file.status)) print_warning(file.path, integrity_text(file));
    if (file.footer && file.footer->flush_timed_out())
      print_warning(file.path, "the exit flush timed out; the last records may be missing");
  }
  return all_opened;
}

std::string table_notes(const std::vector<analysis::FileInfo>& files) {
  std::string out;
  for (const analysis::FileInfo& file : files) {
    if (!file.status.opened || file.gpu.records != 0) continue;
    out += fmt::format("GPU times were not recorded{}: {}\n",
                       files.size() > 1 ? " in " + file.path : std::string(),
                       analysis::missing_gpu_times_reason(file.cupti, file.footer.has_value()));
  }
  for (const analysis::FileInfo& file : files) {
    for (const std::string& line : analysis::cupti_gap_lines(file))
      out += fmt::format("GPU records missing{}: {}\n",
                         files.size() > 1 ? " in " + file.path : std::string(), line);
  }
  for (const analysis::FileInfo& file : files) {
    // Two different stories: GPU work no recorded call issued (a pairing
    // fault, or calls gprof cannot see) and work of calls made outside the
    // capture window (expected, left out).
    const analysis::GpuCounts& g = file.gpu;
    if (g.unpaired == 0 && g.outside_window == 0) continue;
    std::string line;
    if (g.unpaired != 0)
      line = fmt::format("{} unpaired (no recorded call issued them)", g.unpaired);
    if (g.outside_window != 0)
      line += fmt::format("{}{} of calls outside the capture window, left out",
                          line.empty() ? "" : "; ", g.outside_window);
    out += fmt::format("GPU records without their call{}: {}\n",
                       files.size() > 1 ? " in " + file.path : std::string(), line);
  }
  const analysis::LossList counted = analysis::total_losses(files);
  const std::string losses = analysis::format_losses(counted);
  if (!losses.empty()) out += fmt::format("Lost records: {}\n", losses);
  const std::string events = analysis::format_loss_events(counted);
  if (!events.empty()) out += fmt::format("Also counted (no record lost): {}\n", events);
  const std::string holds = analysis::holds_note(files);
  if (!holds.empty()) out += holds + "\n";
  return out;
}

void print_stdout_error(int error) {
  fmt::print(stderr, "gpuprof: error: could not write the output to stdout{}{}\n",
             error != 0 ? ": " : "", error != 0 ? std::strerror(error) : "");
  std::clearerr(stdout);
}

int finish_stdout(std::string_view command, int status, bool failed) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  const bool lost = !flushed || std::ferror(stdout);
  if (!lost && !failed) return status;
  // errno is that of this flush; a write that failed earlier left its own
  // long ago.
  if (lost) print_stdout_error(flushed ? 0 : error);
  // diff and analyze give 2 for lost output whether or not a rule fired,
  // so that the status does not depend on how much was printed when it
  // was lost.
  const bool usage_status = command == "diff" || command == "analyze" || command == "export";
  const int write_status = usage_status ? kExitUsage : kExitFileError;
  return status == kExitOk || (lost && usage_status) ? write_status : status;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "'" : ", '") + item + "'";
  return out;
}

void print_table_notes(std::FILE* out, const std::vector<analysis::FileInfo>& files) {
  if (out == stderr) erase_progress_line();
  fmt::print(out, "{}", table_notes(files));
}

void print_in_memory_notes(const std::vector<std::pair<std::string, std::string>>& files,
                           InMemoryNotes* printed) {
  for (const auto& note : files)
    if (printed == nullptr || printed->insert(note.first).second)
      fmt::print(stderr, "gpuprof: note: {}: read in memory ({})\n", note.first, note.second);
}

}  // namespace gprof::cli
