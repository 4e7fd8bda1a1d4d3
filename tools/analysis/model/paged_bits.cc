#include "tools/analysis/model/paged_bits.h"

namespace gprof::analysis {

void PagedBits::set_new_page(uint64_t id) {
  looked_up_ = false;  // the page may be new
  set_index_ = id / kPageBits;
  std::vector<uint64_t>& page = pages_[set_index_];
  if (page.empty()) page.assign(kPageBits / 64, 0);
  set_page_ = &page;  // map values stay where they are
  const uint64_t bit = id % kPageBits;
  page[bit / 64] |= uint64_t{1} << (bit % 64);
}

void PagedBits::reset(uint64_t id) {
  auto it = pages_.find(id / kPageBits);
  if (it == pages_.end()) return;
  const uint64_t bit = id % kPageBits;
  it->second[bit / 64] &= ~(uint64_t{1} << (bit % 64));
}

bool PagedBits::test_new_page(uint64_t id) const {
  if (pages_.empty()) return false;
  const uint64_t page = id / kPageBits;
  auto it = pages_.find(page);
  last_ = it == pages_.end() ? nullptr : &it->second;
  last_page_ = page;
  looked_up_ = true;
  if (last_ == nullptr) return false;
  const uint64_t bit = id % kPageBits;
  return ((*last_)[bit / 64] >> (bit % 64)) & 1;
}

}  // namespace gprof::analysis
