// Encodes gprof.proto messages from plain structs, and frames them
// ([length][crc32c][payload], framing.h). In-process; no libprotobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/batch_fields.h"
#include "formats/record.h"
#include "formats/write/wire_encoder.h"

namespace gprof {

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

struct HeaderFields {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  std::string_view host;
  const char* const* argv = nullptr;  // argc entries
  size_t argc = 0;
  std::string_view exe;
  uint64_t start_wall_ns = 0;
  uint64_t start_clock_ns = 0;
  std::string_view clock_name;
  int64_t clock_offset_to_wall_ns = 0;
  int32_t cuda_runtime_version = 0;
  int32_t cuda_driver_version = 0;
  std::string_view rank;
  std::string_view gprof_version;
  const KeyValue* config = nullptr;
  size_t config_count = 0;
};

struct LossCount {
  const char* reason;
  uint64_t count;
};

struct FooterFields {
  uint64_t end_wall_ns = 0;
  uint64_t end_clock_ns = 0;
  uint64_t api_records = 0;
  uint64_t frames = 0;
  bool flush_timed_out = false;
  uint64_t gpu_records = 0;
  const LossCount* losses = nullptr;
  size_t loss_count = 0;
  uint64_t holds = 0;
  uint64_t held_ns = 0;
  uint64_t max_held_ns = 0;
  uint64_t peak_queue_bytes = 0;
  uint64_t max_queue_bytes = 0;
  uint64_t thread_mapped_bytes = 0;
  uint32_t output_reopens = 0;
  // pb::TimestampCalibration; written when source is not empty.
  std::string_view timestamp_source;
  double ticks_per_second = 0;
  uint32_t calibration_pairs = 0;
  uint64_t max_uncertainty_ns = 0;
  uint64_t max_residual_ns = 0;
};

enum class StringKind : uint32_t {
  kOther = 0,
  kKernel = 1,
  kThread = 2,
  kNvtx = 3,
  kDomain = 4,
  kCategory = 5
};

// Accumulates the API calls of one thread into the columns of pb::ApiCalls.
class ApiCallsEncoder {
 public:
  void begin(uint32_t tid);
  void add(const ApiRecord& record);
  size_t count() const { return count_; }
  uint32_t tid() const { return tid_; }
  // Writes the batch as field Frame.api_calls into `frame` and resets.
  void finish(ByteBuffer& frame);

 private:
  // Column i is the batch's field kFirstColumn + i (batch_fields.h).
  enum Column { GPROF_API_CALLS_COLUMNS(GPROF_BATCH_FIELD_ENUM) kColumnCount };
  ByteBuffer columns_[kColumnCount];
  ByteBuffer scratch_;
  uint32_t tid_ = 0;
  uint64_t base_ns_ = 0;
  uint64_t previous_start_ = 0;
  size_t count_ = 0;
  bool any_runtime_ = false;
};

// Accumulates the NVTX events of one thread into the columns of pb::Ranges.
// The seq and op_id columns stay empty until an event of the batch has a
// nonzero value; from then on they hold one entry per event (zeros filled in
// for the events before it).
class RangesEncoder {
 public:
  void begin(uint32_t tid);
  void add(const RangeEvent& event);
  size_t count() const { return count_; }
  // Writes the batch as field Frame.ranges into `frame` and resets.
  void finish(ByteBuffer& frame);

 private:
  // Column i is the batch's field kFirstColumn + i (batch_fields.h).
  enum Column { GPROF_RANGES_COLUMNS(GPROF_BATCH_FIELD_ENUM) kCount };
  // Appends `value` to an optional column (kSeq, kOpId) for the event just
  // counted.
  void add_optional(Column column, uint64_t value);
  ByteBuffer columns_[kCount];
  bool started_[kCount] = {};
  ByteBuffer scratch_;
  uint32_t tid_ = 0;
  uint64_t base_ns_ = 0;
  uint64_t previous_ = 0;
  size_t count_ = 0;
};

// Accumulates GPU activities into the columns of pb::GpuActivities.
class GpuActivitiesEncoder {
 public:
  GpuActivitiesEncoder() { clear(); }
  void add(const GpuRecord& record);
  size_t count() const { return count_; }
  // Writes the batch as field Frame.gpu_activities into `frame` and resets.
  void finish(ByteBuffer& frame);

 private:
  void clear();
  // Column i is the batch's field kFirstColumn + i (batch_fields.h).
  enum Column { GPROF_GPU_ACTIVITIES_COLUMNS(GPROF_BATCH_FIELD_ENUM) kColumnCount };
  ByteBuffer columns_[kColumnCount];
  ByteBuffer scratch_;
  uint64_t base_ns_ = 0;
  uint64_t previous_start_ = 0;
  size_t count_ = 0;
};

// Pairs (CUPTI correlation id, pushed external id) for pb::ExternalCorrelations.
class ExternalCorrelationsEncoder {
 public:
  void add(uint64_t correlation, uint64_t external_id);
  size_t count() const { return count_; }
  void finish(ByteBuffer& frame);

 private:
  ByteBuffer correlation_;
  ByteBuffer external_;
  ByteBuffer scratch_;
  size_t count_ = 0;
};

enum class CuptiState : uint32_t {
  kNotStarted = 0,
  kSubscribed = 1,
  kExternalCorrelation = 2,
  kCpuOnly = 3,
  kTakenOver = 4
};

// pb::CuptiGap.
struct CuptiGapFields {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  const char* reason = "";
  uint64_t gpu_records_before = 0;
  uint64_t gpu_records_at_end = 0;
  bool clock_replaced = false;
};

struct CuptiStatusFields {
  CuptiState state = CuptiState::kNotStarted;
  uint32_t version = 0;
  std::string_view library;
  bool timestamps_aligned = false;
  int64_t clock_offset_ns = 0;
  uint64_t offset_uncertainty_ns = 0;
  std::string_view reason;
  const char* const* activity_kinds = nullptr;
  size_t activity_kind_count = 0;
  std::string_view injection;
  std::string_view attach;
  uint64_t buffer_bytes = 0;
  uint32_t buffer_count = 0;
  const CuptiGapFields* gaps = nullptr;
  size_t gap_count = 0;
  uint32_t gaps_not_kept = 0;
  // (open_ns, close_ns) pairs, `window_count` of them; see pb::CuptiStatus.
  const uint64_t* windows = nullptr;
  size_t window_count = 0;
  uint32_t windows_not_kept = 0;
  bool windows_recorded = false;
};

// Field writers for pb::Frame members.
void encode_header(ByteBuffer& frame, const HeaderFields& header);

// A device as the driver describes it (pb::Device).
struct DeviceFields {
  uint32_t ordinal = 0;
  std::string_view name;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t sm_count = 0;
  uint64_t total_memory = 0;
  std::string_view pci_bus_id;
  int32_t driver_version = 0;
};
// Frame.devices: one entry per device.
void encode_devices(ByteBuffer& frame, const DeviceFields* devices, size_t count);
void encode_string(ByteBuffer& frame, uint32_t id, StringKind kind, std::string_view value);
void encode_footer(ByteBuffer& frame, const FooterFields& footer);
void encode_cupti_status(ByteBuffer& frame, const CuptiStatusFields& status);

// The 12-byte file preamble: magic and format version.
void encode_preamble(ByteBuffer& out);
// [length][crc32c] for `payload`, to be written just before it.
void encode_frame_header(const ByteBuffer& payload, unsigned char out[8]);

}  // namespace gprof
