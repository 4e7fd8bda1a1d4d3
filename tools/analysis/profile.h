// Loading many sidecar files through the streaming reader: per-file string
// ids are resolved here, so that analyses see names, not ids, and can mix
// files (one process each: ranks, forks, exec'd children).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/gprof.pb.h"
#include "formats/reader.h"
#include "formats/record.h"

namespace gprof::analysis {

// What one file said about itself.
struct FileInfo {
  std::string path;
  ReadStatus status;
  std::optional<pb::FileHeader> header;
  std::optional<pb::Footer> footer;
};

struct ApiCall {
  uint32_t file;  // index of the file in the list given to load_files
  const ApiRecord& record;
  const ApiInfo& info;  // the reader delivers known APIs only
  // For launches: the mangled kernel name from the file's string table;
  // nullptr when the id is 0 or was never defined.
  const std::string* kernel;
};

class ProfileVisitor {
 public:
  virtual ~ProfileVisitor() = default;
  virtual void on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {}
  virtual void on_header(uint32_t /*file*/, const pb::FileHeader& /*header*/) {}
  virtual void on_string(uint32_t /*file*/, const pb::StringEntry& /*entry*/) {}
  virtual void on_api(const ApiCall& /*call*/) {}
  virtual void on_footer(uint32_t /*file*/, const pb::Footer& /*footer*/) {}
  virtual void on_file_end(uint32_t /*file*/, const FileInfo& /*info*/) {}
};

// Reads the files one after another, in order. Never throws for bad input:
// each FileInfo's status says what was wrong (status.opened == false: the
// file could not be read at all).
std::vector<FileInfo> load_files(const std::vector<std::string>& paths, ProfileVisitor& visitor);

// Sum of the footers' loss counters per reason, in order of first appearance;
// zero counts are left out.
std::vector<std::pair<std::string, uint64_t>> total_losses(const std::vector<FileInfo>& files);

// "ring_full=12 write_error=3"; empty when nothing was lost.
std::string format_losses(const std::vector<std::pair<std::string, uint64_t>>& losses);

}  // namespace gprof::analysis
