// The records the spill tests sort: a key with many ties and the order they
// were added in, so that a test sees whether ties kept that order.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis::spill_test {

struct Rec {
  uint32_t key;
  uint32_t order;  // when it was added
};
struct ByKey {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
};

// Everything a sorter holds, through one new cursor.
template <typename Less>
std::vector<Rec> drain(SpillSorter<Rec, Less>& sorter) {
  std::vector<Rec> out;
  auto cursor = sorter.sorted();
  Rec r;
  while (cursor.next(r)) out.push_back(r);
  return out;
}

}  // namespace gprof::analysis::spill_test
