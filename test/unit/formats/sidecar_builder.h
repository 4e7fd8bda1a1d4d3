// Builds sidecar files by hand for tests: libprotobuf pb::Frame messages,
// framed with formats/framing.h and crc32c, written to a scratch directory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/gprof.pb.h"
#include "formats/record.h"

namespace gprof::test {

using StringKindForTests = pb::StringEntry::Kind;

// The columns of one thread's calls, as the format stores them (gprof.proto).
pb::ApiCalls encode_batch(uint32_t tid, const std::vector<ApiRecord>& records);

// [length][crc32c][payload] for one frame.
std::string framed(const pb::Frame& frame);
std::string framed_payload(std::string_view payload);

// Magic and format version.
std::string preamble(uint32_t version);

class SidecarBuilder {
 public:
  explicit SidecarBuilder(uint32_t version);
  SidecarBuilder();

  SidecarBuilder& header(const pb::FileHeader& header);
  SidecarBuilder& strings(const std::vector<std::pair<uint32_t, std::string>>& kernels);
  SidecarBuilder& calls(uint32_t tid, const std::vector<ApiRecord>& records);
  // GPU activities, written with the in-process encoder (formats/write/frame_encoder.h).
  SidecarBuilder& gpu(const std::vector<GpuRecord>& records);
  SidecarBuilder& external(const std::vector<std::pair<uint64_t, uint64_t>>& pairs);
  SidecarBuilder& cupti(const pb::CuptiStatus& status);
  // NVTX events of thread `tid`, written with the in-process encoder.
  SidecarBuilder& ranges(uint32_t tid, const std::vector<RangeEvent>& events);
  // Threads' calls and NVTX events in one frame, batches in the order given,
  // as the shim's writer drains the threads' queues (collector/output/writer_drain.cc): a
  // thread's calls and events of a drain share a frame, which the streaming
  // report (tools/analysis/aggregate/ops_stream.h) relies on.
  SidecarBuilder& drain(const std::vector<std::pair<uint32_t, std::vector<ApiRecord>>>& calls,
                        const std::vector<std::pair<uint32_t, std::vector<RangeEvent>>>& events);
  // String entries of any kind (NVTX messages, domains, categories).
  SidecarBuilder& named(StringKindForTests kind,
                        const std::vector<std::pair<uint32_t, std::string>>& strings);
  SidecarBuilder& frame(const pb::Frame& frame);
  SidecarBuilder& footer(const pb::Footer& footer);
  SidecarBuilder& raw(std::string_view bytes);

  const std::string& bytes() const { return bytes_; }
  // Offsets where each appended piece starts, for corrupting a given frame.
  const std::vector<size_t>& offsets() const { return offsets_; }

 private:
  std::string bytes_;
  std::vector<size_t> offsets_;
};

// A fresh file `name` under a per-process scratch directory; returns its path.
std::string write_temp_file(const std::string& name, std::string_view bytes);

// A minimal header: pid 42, host "testhost", version 1.
pb::FileHeader test_header();

// test_header() of a run recorded with GPROF_CAPTURE=cudaProfilerApi: its
// windows come in the CUPTI status.
pb::FileHeader capture_window_header();

// One call of `api` on [start, start + duration).
ApiRecord make_call(ApiId api, uint64_t start_ns, uint64_t duration_ns);

// An NVTX event of `op` at `time_ns` (name: a string id, 0 for pops and ends).
RangeEvent make_range_event(RangeOp op, uint64_t time_ns, uint32_t name = 0, uint64_t range_id = 0);

// One kernel execution of `kernel` (a string id) on [start, start + duration).
GpuRecord make_kernel(uint32_t kernel, uint64_t start_ns, uint64_t duration_ns,
                      uint64_t correlation);
// A copy of `bytes` (CUpti_ActivityMemcpyKind `copy_kind`, memory kinds src → dst).
GpuRecord make_copy(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind, uint64_t bytes,
                    uint64_t start_ns, uint64_t duration_ns, uint64_t correlation);

}  // namespace gprof::test
