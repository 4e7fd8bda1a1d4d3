// Hand-built GPU captures shared by the analysis and CLI tests: API calls and
// the CUPTI records they issued, with round numbers so that every expected
// value can be worked out by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"
#include "formats/record.h"

namespace gprof::test {

// CUPTI enum values (cupti_activity.h) used by the fixtures.
inline constexpr uint8_t kCopyHtoD = 1, kCopyDtoH = 2, kCopyDtoD = 8, kCopyHtoH = 9, kCopyPtoP = 10;
inline constexpr uint8_t kMemPageable = 1, kMemPinned = 2, kMemDevice = 3, kMemManaged = 5;
inline constexpr uint32_t kSyncStream = 3;

ApiRecord make_launch(ApiId api, uint64_t start_ns, uint64_t duration_ns, uint32_t kernel,
                      uint64_t correlation);
// Any other call, with its correlation.
ApiRecord make_correlated(ApiId api, uint64_t start_ns, uint64_t duration_ns, uint64_t correlation);
GpuRecord make_memset(uint8_t dst_kind, uint64_t bytes, uint64_t start_ns, uint64_t duration_ns,
                      uint64_t correlation);
GpuRecord make_sync(uint32_t type, uint64_t start_ns, uint64_t duration_ns, uint64_t correlation);

pb::CuptiStatus subscribed_status();

// A SUBSCRIBED capture on thread 10 (times in ns; queue = GPU start - API end):
//   corr  API call                    GPU record
//   1     cudaLaunchKernel  1000+200  square    1500+4000
//   2     cudaLaunchKernel  2000+300  square    5500+6000
//   3     __cudaLaunchKernel_ptsz  3000+100  vector_add 11500+1000
//   4     cudaMemcpyAsync   4000+500  Memcpy HtoD (Pageable -> Device) 12500+2000
//   5     cudaMemsetAsync   5000+50   Memset (Device)                  14500+500
//   6     cudaStreamSynchronize 6000+10000  sync (Stream Synchronize) 6000+10000
//   7     cudaMemcpy        20000+3000  Memcpy DtoH (Device -> Pinned) 20500+1500
//   -     (none)                      square    30000+100, correlation 99: unpaired
// GPU work: square 10100 (3 runs), vector_add 1000, copies 2000 + 1500, set 500.
std::string write_subscribed_capture(const std::string& name);

// A long run whose 32-bit CUPTI ids wrapped (analysis/read/call_pairing.h), on thread
// 10: six launches at 1000, 2000 ... 6000 ns, their ids kWrapStep apart, so
// that the fifth has id 1 again, like the first. Launch i (0-based) names
// kernel i + 1 ("k0" ... "k5") with 16 * (i + 1) bytes of dynamic shared
// memory and issued one run of it at its start + 500 with 1024 bytes of
// static shared memory (GPU records written first). `external`: EXTERNAL_CORRELATION, where the
// calls carry the pushed ids 1...6 and the mapping CUPTI's wrapping ids.
inline constexpr uint64_t kWrapStep = uint64_t{1} << 30;
std::string write_wrapped_capture(const std::string& name, bool external);
// Launch i's id unwrapped: 1 + i * kWrapStep.
inline uint64_t wrapped_id(uint64_t i) {
  return 1 + i * kWrapStep;
}

}  // namespace gprof::test
