// A set of 64-bit ids that come clustered (correlation ids, call numbers):
// one bit per id, in 8 KiB pages made on first use, so that memory follows
// the span of ids used, not their values.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gprof::analysis {

class PagedBits {
 public:
  PagedBits() = default;
  // The caches point into pages_, whose nodes a move keeps and a copy does not.
  PagedBits(const PagedBits& other) : pages_(other.pages_) {}
  PagedBits& operator=(const PagedBits& other) {
    if (this != &other) {
      clear();
      pages_ = other.pages_;
    }
    return *this;
  }
  PagedBits(PagedBits&& other) noexcept { *this = std::move(other); }
  PagedBits& operator=(PagedBits&& other) noexcept {
    pages_ = std::move(other.pages_);
    looked_up_ = std::exchange(other.looked_up_, false);
    last_page_ = other.last_page_;
    last_ = std::exchange(other.last_, nullptr);
    set_page_ = std::exchange(other.set_page_, nullptr);
    set_index_ = other.set_index_;
    other.pages_.clear();
    return *this;
  }

  void set(uint64_t id) {
    // Ids come nearly in order: most sets fall on the page set last.
    if (set_page_ != nullptr && id / kPageBits == set_index_) {
      const uint64_t bit = id % kPageBits;
      (*set_page_)[bit / 64] |= uint64_t{1} << (bit % 64);
      return;
    }
    set_new_page(id);
  }
  void reset(uint64_t id);
  bool test(uint64_t id) const {
    // Ids come nearly in order: most tests fall on the page looked up last
    // (inline: report's stream tests two sets per call).
    if (looked_up_ && id / kPageBits == last_page_) {
      if (last_ == nullptr) return false;
      const uint64_t bit = id % kPageBits;
      return ((*last_)[bit / 64] >> (bit % 64)) & 1;
    }
    return test_new_page(id);
  }
  void clear() {
    pages_.clear();
    looked_up_ = false;
    set_page_ = nullptr;
  }

 private:
  void set_new_page(uint64_t id);
  bool test_new_page(uint64_t id) const;
  static constexpr uint64_t kPageBits = 1u << 16;
  std::unordered_map<uint64_t, std::vector<uint64_t>> pages_;
  // The last page test() looked up (nullptr: none there): ids come in order,
  // so most tests fall on it. Map values stay where they are.
  mutable bool looked_up_ = false;
  mutable uint64_t last_page_ = 0;
  mutable const std::vector<uint64_t>* last_ = nullptr;
  std::vector<uint64_t>* set_page_ = nullptr;  // the page set() wrote last
  uint64_t set_index_ = 0;
};

}  // namespace gprof::analysis
