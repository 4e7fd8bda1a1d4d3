// Loading many sidecar files through the streaming reader: per-file string
// ids are resolved here, so that analyses see names, not ids, and can mix
// files (one process each: ranks, forks, exec'd children).
//
// GPU records are paired with the API calls that issued them (call_pairing.h),
// NVTX events into ranges (nvtx_ranges.h). Since a file may hold a GPU record
// before the call or the external correlation it pairs through, and a range's
// end before its start, a file's GPU records and NVTX events are kept until
// the file has been read and handed out then: every on_api of a file comes
// before its on_range calls, then its on_gpu, then its on_launch calls, then
// its on_file_end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/gprof.pb.h"
#include "formats/read/reader.h"
#include "formats/record.h"
#include "tools/analysis/model/call_ref.h"
#include "tools/analysis/model/capture_windows.h"
#include "tools/analysis/model/nvtx_ranges.h"

namespace gprof::analysis {

// What a file's GPU records amounted to.
struct GpuCounts {
  uint64_t records = 0;  // handed to on_gpu
  uint64_t kernels = 0;
  uint64_t copies = 0;
  uint64_t sets = 0;
  uint64_t syncs = 0;
  uint64_t unpaired = 0;  // no API call of the file issued them
  // start = end = 0 (docs/architecture.md §3.2): counted, not handed out
  uint64_t no_timestamp = 0;
  // With a capture window (GPROF_CAPTURE, GPROF_DELAY…), CUPTI still reports
  // the GPU work of calls made outside it; that work is left out, counted.
  uint64_t outside_window = 0;
  uint64_t external_correlations = 0;

  // One more handed-out record of this kind (kernels, copies, sets, syncs).
  void count(GpuKind kind);
};

// What the GPU records of a file look like around one CuptiStatus gap (an
// interval when another tool had taken CUPTI over): GPU records by start
// time, and the launches made inside it, with how many have no GPU record.
struct GapCounts {
  uint64_t gpu_before = 0;
  uint64_t gpu_during = 0;
  uint64_t gpu_after = 0;
  uint64_t launches = 0;
  uint64_t launches_without_gpu = 0;
};

// What one file said about itself.
struct FileInfo {
  std::string path;
  ReadStatus status;
  std::optional<pb::FileHeader> header;
  std::optional<pb::Footer> footer;
  std::optional<pb::CuptiStatus> cupti;  // the last one read
  GpuCounts gpu;
  std::vector<GapCounts> gaps;  // one per cupti->gaps(), filled by load_files
  RangeCounts ranges;
  std::map<uint32_t, std::string> thread_names;  // nvtxNameOsThread: tid -> name
  // Earliest start and latest end of any record (API call, NVTX event, GPU
  // activity); both 0 when the file has none.
  uint64_t first_ns = 0;
  uint64_t last_ns = 0;
};

struct ApiCall {
  uint32_t file;  // index of the file in the list given to load_files
  const ApiRecord& record;
  const ApiInfo& info;  // the reader delivers known APIs only
  // For launches: the mangled kernel name from the file's string table;
  // nullptr when the id is 0 or was never defined.
  const std::string* kernel;
  uint32_t index;  // 0, 1, 2... in the order the file's calls are handed out
};

// A paired NVTX range or a mark (nvtx_ranges.h) with its row name.
struct RangeSpan {
  uint32_t file;
  const Range& range;
  const std::string& name;  // range_row_name(): "forward", "aten::mm", "mydomain:step"
  // PyTorch emit_nvtx ops: the "sizes" part of the message ("[[8, 16], [16,
  // 4]]", torch_input_shapes()); empty for other ranges.
  const std::string& input_shapes;
};

// One GPU record with what the file says about it. The record, the names
// and the call it points at stay valid until on_file_end returns, so that a
// visitor may keep the pointers (not the GpuActivity) until then.
struct GpuActivity {
  uint32_t file;
  const GpuRecord* record;
  const std::string* name;    // the row name (gpu_names.h)
  const std::string* kernel;  // kernels: the mangled name; nullptr when unknown
  const CallRef* call;        // the API call that issued it; nullptr when unpaired

  // Kernels, copies and sets take GPU time; sync records only say that the
  // GPU waited, so they pair but are not GPU work.
  bool is_work() const { return record->kind != GpuKind::kSync; }
  uint64_t duration_ns() const {
    return record->end_ns > record->start_ns ? record->end_ns - record->start_ns : 0;
  }
};

// An API call and the GPU work (not sync records) it issued: one kernel, copy
// or set for most calls, many for a graph launch.
struct Launch {
  uint32_t file;
  const CallRef& call;
  const ApiInfo& info;
  std::span<const GpuActivity* const> work;  // by start time; never empty
};

class ProfileVisitor {
 public:
  virtual ~ProfileVisitor() = default;
  virtual void on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {}
  virtual void on_header(uint32_t /*file*/, const pb::FileHeader& /*header*/) {}
  virtual void on_string(uint32_t /*file*/, const pb::StringEntry& /*entry*/) {}
  virtual void on_api(const ApiCall& /*call*/) {}
  // Every range and mark of the file, in the order they were opened.
  virtual void on_range(const RangeSpan& /*span*/) {}
  // Every GPU record of the file with a timestamp, in file order.
  virtual void on_gpu(const GpuActivity& /*activity*/) {}
  // Every API call of the file that issued GPU work, in correlation order.
  virtual void on_launch(const Launch& /*launch*/) {}
  virtual void on_footer(uint32_t /*file*/, const pb::Footer& /*footer*/) {}
  virtual void on_file_end(uint32_t /*file*/, const FileInfo& /*info*/) {}
};

// Whether the shim recorded this file with a capture window (GPROF_CAPTURE,
// GPROF_DELAY...): GPU work of calls outside it is then left out.
bool has_capture_window(const pb::FileHeader& header);

// Reads the files one after another, in order. Never throws for bad input:
// each FileInfo's status says what was wrong (status.opened == false: the
// file could not be read at all).
std::vector<FileInfo> load_files(const std::vector<std::string>& paths, ProfileVisitor& visitor);

// One file of a list, as load_files reads the one at `index`.
FileInfo load_file(uint32_t index, const std::string& path, ProfileVisitor& visitor);

// Loss counters: (reason, count).
using LossList = std::vector<std::pair<std::string, uint64_t>>;

// Sum of the footers' loss counters per reason, in order of first appearance;
// zero counts are left out.
LossList total_losses(const std::vector<FileInfo>& files);

// Whether a loss reason is CUPTI's ("cupti_dropped", ...) rather than gprof's.
bool is_cupti_loss(std::string_view reason);

// "0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.19 GB, PCI 0000:19:00.0)":
// what the driver said of a device, as far as the file knows it.
std::string describe_device(const pb::Device& device);

// Devices a file describes after its header (Frame.devices), put into the
// header: an ordinal already there is replaced.
void merge_devices(pb::FileHeader& header,
                   const google::protobuf::RepeatedPtrField<pb::Device>& devices);

// gprof's own losses (first) and CUPTI's (second), each in the given order.
std::pair<LossList, LossList> split_losses(const LossList& losses);

// "ring_full=12 write_error=3"; empty when the list is empty.
std::string format_loss_list(const LossList& losses);

// The reasons that count lost records (formats/loss_reasons.h): gprof's,
// then CUPTI's labelled as such: "ring_full=12; CUPTI: cupti_dropped=3",
// "CUPTI: cupti_dropped=3"; empty when no record was lost.
std::string format_losses(const LossList& losses);

// The other counters, which lose no record: "cupti_no_buffer=2
// kernel_table_full=1" (the records CUPTI dropped for want of a buffer are
// in cupti_dropped); empty when none.
std::string format_loss_events(const LossList& losses);

}  // namespace gprof::analysis
