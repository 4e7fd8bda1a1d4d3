// Where a finding's cost went: each contribution (a call, a GPU record, a
// gap) is charged to its innermost range, step, thread, stream, device and
// file, and the largest of each are kept with their share.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
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
  void add_range(const Timeline& timeline, const std::string* range, uint64_t cost_ns);
  void add_step(const Timeline& timeline, int32_t step);

  // Each map's places by a key that names them without their text, and the
  // last one asked for: making the text and looking it up was most of
  // launch-bound's time, and contributions come in runs of one thread,
  // stream and range, but not only (a short launch is charged to the range
  // of the launch before it, which alternates with the next one's).
  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
      return static_cast<size_t>(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
    }
  };
  static constexpr size_t kKnownLimit = 4096;
  struct Last {
    uint64_t first = UINT64_MAX, second = UINT64_MAX;
    uint64_t* cost = nullptr;  // std::map's values stay where they are
    std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t*, PairHash> known;
  };
  template <typename Name>
  uint64_t& cost_of(std::map<std::string, uint64_t>& map, Last& last, uint64_t first,
                    uint64_t second, Name&& name) {
    if (last.cost == nullptr || last.first != first || last.second != second) {
      // A cache: the in-memory timeline names a range by its own entry.
      if (last.known.size() >= kKnownLimit) last.known.clear();
      auto [it, fresh] = last.known.try_emplace({first, second}, nullptr);
      if (fresh) it->second = &map[name()];
      last.first = first;
      last.second = second;
      last.cost = it->second;
    }
    return *last.cost;
  }

  std::map<std::string, uint64_t> ranges_, threads_, streams_, devices_, files_, activities_;
  Last last_range_, last_thread_, last_stream_, last_device_, last_file_, last_activity_;
  std::set<std::pair<uint32_t, int32_t>> steps_;  // (file, step)
  std::pair<uint32_t, int32_t> last_step_{UINT32_MAX, kNone};
};

// The step of `timeline` at `time_ns`, kNone when outside every step.
int32_t step_at(const Timeline& timeline, uint64_t time_ns);

}  // namespace gprof::findings
