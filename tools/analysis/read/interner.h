// Strings as small integers, so that per-event bookkeeping holds ids rather
// than strings and compares names in O(1).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gprof::analysis {

class Interner {
 public:
  static constexpr uint32_t kEmpty = 0;  // the id of ""

  Interner();
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;

  uint32_t id(std::string_view text);
  const std::string& text(uint32_t id) const { return texts_[id]; }

 private:
  std::deque<std::string> texts_;  // a deque: the map's keys point into it
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace gprof::analysis
