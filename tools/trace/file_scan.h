// What the trace must know of every file before it writes the first one:
// its header (for the clocks) and its earliest record (for the origin). With
// several files this costs one extra read of each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/gprof.pb.h"

namespace gprof::trace {

struct FileStart {
  std::optional<pb::FileHeader> header;
  // The earliest record, as FileInfo::first_ns counts it; nullopt when the
  // file has none (or cannot be read).
  std::optional<uint64_t> first_ns;
};

FileStart scan_file_start(const std::string& path);

}  // namespace gprof::trace
