#include "tools/gpuprof/cli/input_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <system_error>

#include "formats/framing.h"
#include "formats/read/reader.h"

namespace gprof::cli {
namespace {

namespace fs = std::filesystem;

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

// Sidecar files under `dir`, sorted by path; unreadable entries are skipped
// (a directory of a running job may lose files while we look).
std::vector<std::string> sidecars_under(const fs::path& dir, bool recursive) {
  std::vector<std::string> found;
  std::error_code ec;
  auto visit = [&](const fs::directory_entry& entry) {
    std::error_code ignored;
    if (entry.is_regular_file(ignored) && is_sidecar_file(entry.path().string()))
      found.push_back(entry.path().string());
  };
  if (recursive) {
    for (fs::recursive_directory_iterator
             it(dir, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec))
      visit(*it);
  } else {
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      visit(*it);
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Files of one multi-rank job, as `gpuprof record -o out/%r.gprof` under a
// launcher leaves them: two or more, each with a rank, no rank twice.
// Repeated runs of one process have no rank, or the same one.
bool one_job(const std::vector<std::string>& files) {
  if (files.size() < 2) return false;
  std::set<std::string> ranks;
  for (const std::string& file : files) {
    const std::optional<pb::FileHeader> header = read_header(file);
    if (!header || header->rank().empty() || !ranks.insert(header->rank()).second) return false;
  }
  return true;
}

}  // namespace

bool is_sidecar_file(const std::string& path) {
  // Opening a FIFO to read its first bytes would wait for a writer.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kFileMagic];
  if (!in.read(magic, sizeof magic)) return false;
  return std::memcmp(magic, kFileMagic, sizeof magic) == 0;
}

Inputs expand_inputs(const std::vector<std::string>& arguments) {
  Inputs inputs;
  std::set<std::string> seen;
  auto add = [&](const std::string& path) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (seen.insert(ec ? path : canonical.string()).second) inputs.files.push_back(path);
  };
  for (const std::string& argument : arguments) {
    if (!is_directory(argument)) {
      add(argument);
      continue;
    }
    const std::vector<std::string> files = sidecars_under(argument, true);
    if (files.empty()) inputs.errors.push_back(argument + ": no sidecar files in this directory");
    for (const std::string& file : files) add(file);
  }
  return inputs;
}

Runs expand_runs(const std::string& argument) {
  Runs runs;
  if (!is_directory(argument)) {
    runs.runs.push_back({argument});
    return runs;
  }
  const std::vector<std::string> flat = sidecars_under(argument, false);
  if (one_job(flat))
    runs.runs.push_back(flat);
  else
    for (const std::string& file : flat) runs.runs.push_back({file});
  std::vector<fs::path> subdirs;
  std::error_code ec;
  for (fs::directory_iterator it(argument, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (it->is_directory(ignored)) subdirs.push_back(it->path());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const fs::path& dir : subdirs) {
    std::vector<std::string> files = sidecars_under(dir, true);
    if (!files.empty()) runs.runs.push_back(std::move(files));
  }
  if (runs.runs.empty()) runs.errors.push_back(argument + ": no sidecar files in this directory");
  return runs;
}

Runs expand_run_list(const std::vector<std::string>& arguments) {
  Runs runs;
  std::vector<std::string> files;
  for (const std::string& argument : arguments) {
    if (!is_directory(argument)) {
      files.push_back(argument);
      continue;
    }
    Runs more = expand_runs(argument);
    runs.runs.insert(runs.runs.end(), more.runs.begin(), more.runs.end());
    runs.errors.insert(runs.errors.end(), more.errors.begin(), more.errors.end());
  }
  if (one_job(files))
    runs.runs.push_back(files);
  else
    for (const std::string& file : files) runs.runs.push_back({file});
  return runs;
}

bool report_input_errors(const std::vector<std::string>& errors) {
  for (const std::string& error : errors) fmt::print(stderr, "gpuprof: error: {}\n", error);
  return errors.empty();
}

}  // namespace gprof::cli
