// GPU time that comes after its call left the pairing table (CallSlots
// pushed the walked call out before its work came), for the streaming
// report (ops_stream.h): the call's device targets (its context's rows and
// fields, walk_contexts.h) are kept as it leaves, the late work's time as it
// comes, both sorted by correlation id on disk past 4 MiB each, and joined
// once the file has ended. Memory stays bounded however far the GPU falls
// behind its calls.
#pragma once

#include <cstdint>
#include <functional>

#include "tools/analysis/model/walk_contexts.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

class LateDeviceTime {
 public:
  // A call pushed out while its work may still come: where that work's
  // time goes, while `context` is alive.
  void pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context);
  // GPU work of a pushed call (CallSlots::Gpu::kLate).
  void late(uint64_t correlation, uint64_t ns) {
    if (ns != 0) late_.add(Late{correlation, ns});
  }
  // Once the file has ended: each late record's time to its call's targets.
  // False when a late record's call was not kept (pushed() never told).
  bool join(const std::function<void(uint32_t key, WalkField field, uint64_t ns)>& add);

 private:
  struct Target {  // one per target of a pushed call's context; kNoTarget: none
    uint64_t correlation;
    uint32_t key;
    uint8_t field;
  };
  struct Late {
    uint64_t correlation;
    uint64_t ns;
  };
  struct ByCorrelation {
    bool operator()(const Target& a, const Target& b) const {
      return a.correlation < b.correlation;
    }
    bool operator()(const Late& a, const Late& b) const { return a.correlation < b.correlation; }
  };
  static constexpr uint8_t kNoTarget = 0xff;
  static constexpr size_t kBudget = (size_t{4} << 20) / sizeof(Target);

  SpillSorter<Target, ByCorrelation> targets_{kBudget};
  SpillSorter<Late, ByCorrelation> late_{kBudget};
};

}  // namespace gprof::analysis
