// When a file's capture window was open (pb::CuptiStatus.capture_windows),
// to tell GPU work issued outside it from GPU work that pairs with nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "formats/gprof.pb.h"

namespace gprof::analysis {

class CaptureWindows {
 public:
  // `windowed`: the file was recorded with a capture window (has_capture_window).
  CaptureWindows(bool windowed, const std::optional<pb::CuptiStatus>& cupti);

  // Whether an unpaired GPU record that started at `start_ns` belongs to a
  // call made outside the window. Files that recorded every open and close:
  // it started outside all of them (work issued in the window runs after
  // its call, in it or later; a call in the window is recorded, so its work
  // pairs unless the pairing failed). Older files, or a window that opened
  // and closed more times than the file keeps: every unpaired record, as
  // before (the two cannot be told apart there).
  bool outside(uint64_t start_ns) const;
  // Whether the file said when the window was open; then `open()` holds it.
  bool exact() const { return exact_; }
  const std::vector<std::pair<uint64_t, uint64_t>>& open() const { return open_; }

 private:
  bool windowed_ = false;
  bool exact_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> open_;  // [open, close), sorted
};

}  // namespace gprof::analysis
