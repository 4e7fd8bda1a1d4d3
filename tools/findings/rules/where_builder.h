// Where a finding's cost went: each contribution (a call, a GPU record, a
// gap) is charged to its innermost range, step, thread, stream, device and
// file, and the largest of each are kept with their share.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/findings/finding.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

// Where a call stands: the name of its innermost range (nullptr: none), its
// step (Timeline::steps) and its thread. The in-memory timeline and the
// streamed one (streamed_analysis.h) both describe calls this way.
struct CallPlace {
  const std::string* range = nullptr;
  int32_t step = kNone;
  uint32_t tid = 0;
};

// A call of an in-memory timeline.
CallPlace place_of(const Timeline& timeline, const Call& call);

class WhereBuilder {
 public:
  // A call (nullptr: none) and the GPU record it issued (nullptr: none).
  void add(const Timeline& timeline, const CallPlace* call, const Work* work, uint64_t cost_ns);
  // Time with no call: charged to `range` (nullptr: no range; then
  // `range_tid` is not used), the step at `time_ns` and `device`.
  void add_time(const Timeline& timeline, const std::string* range, uint32_t range_tid,
                uint64_t time_ns, uint32_t device, uint64_t cost_ns);

  // The `top` largest of each; steps counted over `timelines`.
  Where finish(const std::vector<Timeline>& timelines, size_t top = 3) const;

 private:
  void add_range(const std::string* range, uint64_t cost_ns);
  void add_step(const Timeline& timeline, int32_t step);

  std::map<std::string, uint64_t> ranges_, threads_, streams_, devices_, files_, activities_;
  std::set<std::pair<uint32_t, int32_t>> steps_;  // (file, step)
};

// The step of `timeline` at `time_ns`, kNone when outside every step.
int32_t step_at(const Timeline& timeline, uint64_t time_ns);

}  // namespace gprof::findings
