// CallPairing (tools/analysis/model/pairing.h) in correlation mode, over
// calls and GPU records sorted by correlation id (ByCorrelation): a GPU
// record pairs with the first call (by start) of its id; id 0 never pairs.
// One merge for every streamed reader of a file (the findings' timeline,
// report's launches and memory views), so that they pair alike.
#pragma once

#include <cstdint>

#include "tools/findings/stream/stream_records.h"

namespace gprof::findings::stream {

// `visit` gets, in correlation order:
//   owner(call), then issued(gpu) for each GPU record of its id (by start),
//   then owned() — for the first call of an id that has GPU records or not;
//   other(call) for the later calls of an id and the calls of id 0;
//   unpaired(gpu) for GPU records no call of the file issued.
template <typename Calls, typename Gpu, typename Visit>
void join_by_correlation(Calls& calls, Gpu& gpu, Visit& visit) {
  CallRecord c;
  GpuScan g;
  bool has_c = calls.next(c), has_g = gpu.next(g);
  while (has_c || has_g) {
    const uint64_t id =
        has_c && (!has_g || c.correlation <= g.correlation) ? c.correlation : g.correlation;
    if (has_c && c.correlation == id && id != 0) {
      visit.owner(c);
      has_c = calls.next(c);
      for (; has_g && g.correlation == id; has_g = gpu.next(g)) visit.issued(g);
      visit.owned();
      for (; has_c && c.correlation == id; has_c = calls.next(c)) visit.other(c);
    } else if (has_c && c.correlation == id) {
      visit.other(c);
      has_c = calls.next(c);
    } else {
      visit.unpaired(g);
      has_g = gpu.next(g);
    }
  }
}

}  // namespace gprof::findings::stream
