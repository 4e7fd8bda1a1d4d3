#include "tools/analysis/model/external_ids.h"

#include "formats/correlation_ids.h"

namespace gprof::analysis {

ExternalIds::Added ExternalIds::add(uint64_t cupti, uint64_t pushed) {
  if (!is_pushed_id(pushed)) return Added::kSmallIds;
  if (cupti == 0) return Added::kAgain;  // pairs with nothing, as in memory
  if (slots_.empty()) {
    mask_ = (uint64_t{1} << bits_) - 1;
    slots_.resize(size_t{1} << bits_);
  }
  Slot& slot = slots_[cupti & mask_];
  if (slot.cupti == cupti) return slot.pushed == pushed ? Added::kAgain : Added::kConflict;
  if (pushed_out_.test(cupti)) return Added::kConflict;
  if (slot.cupti != 0) {
    pushed_out_.set(slot.cupti);
    pushed_out_mappings_.add(slot);
  }
  slot = Slot{cupti, pushed};
  empty_ = false;
  return Added::kNew;
}

}  // namespace gprof::analysis
