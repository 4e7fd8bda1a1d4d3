#include "tools/analysis/model/external_ids.h"

#include "formats/correlation_ids.h"

namespace gprof::analysis {

ExternalIds::ExternalIds(uint32_t bits)
    : mask_((uint64_t{1} << bits) - 1), slots_(size_t{1} << bits) {}

ExternalIds::Added ExternalIds::add(uint64_t cupti, uint64_t pushed) {
  if (!is_pushed_id(pushed)) return Added::kSmallIds;
  if (cupti == 0) return Added::kAgain;  // pairs with nothing, as in memory
  Slot& slot = slots_[cupti & mask_];
  if (slot.cupti == cupti) return slot.pushed == pushed ? Added::kAgain : Added::kConflict;
  if (pushed_out_.test(cupti)) return Added::kConflict;
  if (slot.cupti != 0) pushed_out_.set(slot.cupti);
  slot = Slot{cupti, pushed};
  empty_ = false;
  return Added::kNew;
}

}  // namespace gprof::analysis
