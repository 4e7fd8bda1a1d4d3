// A file read by FileScan (stream_scan.h), its calls sorted by correlation
// as read, beside its GPU records, and the two joined (FileScan::join): the read
// that the streams needing only which call issued what share (report's
// launches and memory views, dump's GPU records).
#pragma once

#include <string>
#include <vector>

#include "formats/read/pipelined_reader.h"
#include "tools/findings/stream/stream_scan.h"

namespace gprof::findings::stream {

// Reads `path` (frames decoded on `decoders` more threads, 0: none) into
// `info` as load_file would, then hands `make(scan, windowed)`'s visit the
// join. False: the file needs the in-memory loader (`why` says why), and
// nothing was joined.
template <typename MakeVisit>
bool scan_and_join(const std::string& path, unsigned decoders, analysis::FileInfo& info,
                   std::vector<std::string>& names, std::string& why, MakeVisit&& make) {
  info = analysis::FileInfo{};
  info.path = path;
  FileScan scan(info, names, /*ranges=*/false);
  info.status = decoders > 0 ? read_file_pipelined(path, scan, decoders) : read_file(path, scan);
  if (!scan.finish()) {
    why = scan.why();
    return false;
  }
  WindowedGpu windowed(scan, info);
  auto visit = make(scan, windowed);
  scan.join(scan.calls_by_id, visit);
  return true;
}

}  // namespace gprof::findings::stream
