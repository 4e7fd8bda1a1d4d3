// A file's GPU work and the calls that issued it, read as a stream:
// report's launches and memory views over the findings' external sorts
// (stream_scan.h, analysis/read/correlation_join.h) instead of a file held in memory (the
// loader of profile.h keeps ~90 bytes a record until the file ends), so that
// their memory follows the distinct rows, not the run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tools/analysis/read/profile.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings::stream {

class IssuedWorkVisitor {
 public:
  virtual ~IssuedWorkVisitor() = default;
  // Each GPU work record (kernels, copies, sets: not syncs), in no given
  // order (by correlation id); `name` its row name (gpu_names.h);
  // work.call the ApiCall::index of the call that issued it, kNone for work
  // no call claimed.
  virtual void on_work(const Work& /*work*/, const std::string& /*name*/) {}
  // Each call that issued GPU work, its work by start (never empty; names
  // in `names`), in the order of the loader's on_launch: by correlation id.
  virtual void on_launch(const Call& /*call*/, std::span<const Work> /*work*/,
                         const std::vector<std::string>& /*names*/) {}
};

// Reads `path` (frames decoded on `decoders` more threads, 0: none) into
// `visitor`, and `info` as load_file would. False: the file needs the
// in-memory loader (external correlation, CUPTI gaps, ids near 2^32: `why`
// says which), and nothing was handed out.
bool stream_issued_work(const std::string& path, unsigned decoders, analysis::FileInfo& info,
                        IssuedWorkVisitor& visitor, std::string& why);

}  // namespace gprof::findings::stream
