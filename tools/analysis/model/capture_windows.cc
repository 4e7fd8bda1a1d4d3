#include "tools/analysis/model/capture_windows.h"

#include <algorithm>
#include <limits>

namespace gprof::analysis {

CaptureWindows::CaptureWindows(bool windowed, const std::optional<pb::CuptiStatus>& cupti)
    : windowed_(windowed) {
  if (!windowed || !cupti || !cupti->capture_windows_recorded() ||
      cupti->capture_windows_not_kept() != 0)
    return;
  exact_ = true;
  const auto& bounds = cupti->capture_windows();
  for (int i = 0; i + 1 < bounds.size(); i += 2) {
    const uint64_t close =
        bounds[i + 1] == 0 ? std::numeric_limits<uint64_t>::max() : bounds[i + 1];
    open_.emplace_back(bounds[i], close);
  }
  std::sort(open_.begin(), open_.end());
}

bool CaptureWindows::outside(uint64_t start_ns) const {
  if (!windowed_) return false;
  if (!exact_) return true;
  // The last window that opened at or before start_ns.
  auto it = std::upper_bound(open_.begin(), open_.end(),
                             std::make_pair(start_ns, std::numeric_limits<uint64_t>::max()));
  if (it == open_.begin()) return true;
  --it;
  return start_ns >= it->second;
}

}  // namespace gprof::analysis
