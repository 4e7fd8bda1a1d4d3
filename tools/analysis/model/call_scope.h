// Which API calls of the file being read are inside the report's scope
// (--range): the launches and memory views ask the ops model (ops_rows.h),
// which knows how calls nest in ranges, rather than work it out again.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/analysis/model/call_ref.h"

namespace gprof::analysis {

class CallScope {
 public:
  virtual ~CallScope() = default;
  // False when there is no filter: everything is in scope.
  virtual bool filters() const = 0;
  // Whether call `index` (ApiCall::index) of the current file is in scope;
  // valid from the scope's own on_file_end until the next file begins.
  virtual bool contains(uint32_t index) const = 0;
};

// The calls of one file in scope, marked by index as a streamed read walks
// them (ops_stream.h), for a second streamed read of the same file
// (report's launches and memory views): a bit a call.
class CallSet final : public CallScope {
 public:
  void add(uint32_t index) {
    if (index / 64 >= bits_.size()) bits_.resize(index / 64 + 1, 0);
    bits_[index / 64] |= uint64_t{1} << (index % 64);
  }
  bool filters() const override { return true; }
  bool contains(uint32_t index) const override {
    return index / 64 < bits_.size() && (bits_[index / 64] >> (index % 64) & 1) != 0;
  }

 private:
  std::vector<uint64_t> bits_;
};

// Whether GPU work issued by `call` is in scope: all of it without a scope
// or a filter; else only work that pairs with a call in scope.
inline bool in_scope(const CallScope* scope, const CallRef* call) {
  if (scope == nullptr || !scope->filters()) return true;
  return call != nullptr && scope->contains(call->index);
}

}  // namespace gprof::analysis
