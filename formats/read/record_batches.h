// The records of one checked batch of a frame (frame_delivery.h) as plain
// columns, for a visitor that takes a batch at a time
// (RecordVisitor::on_api_batch, ...): a tight loop over arrays instead of a
// call per record. The per-record calls are split from the same columns
// (for_each_api_record, ...), which is what the visitor's default batch
// methods do, so both ways read one layout, the one batch_fields.h
// describes.
//
// Optional columns hold values only for the records whose kind has the
// field (api_ids.h's fields, record.h's gpu_fields), in record order; a
// batch's columns are valid during the call that hands it out.
#pragma once

#include <array>
#include <cstdint>

#include "formats/record.h"

namespace gprof {

// The optional columns of each ApiId (api_ids.h), by raw id: a lookup per
// record instead of a call. kKnownApi marks ids this build knows.
inline constexpr uint8_t kKnownApi = 0x80;
static_assert((kFieldLaunch | kFieldStream | kFieldBytes | kFieldAddress | kFieldCopyKind) <
              kKnownApi);
extern const std::array<uint8_t, 256> kApiFieldsByRaw;

// kKnownApi | the ApiField bits of a raw id; 0: an id this build does not know.
inline uint32_t known_api_fields(uint32_t raw) {
  return raw < kApiFieldsByRaw.size() ? kApiFieldsByRaw[raw] : 0;
}

// pb::ApiCalls: one thread's calls; every id known (a batch naming another
// is skipped whole, ReadStatus::skipped_records).
struct ApiBatch {
  uint32_t tid = 0;
  uint64_t base_ns = 0;
  uint32_t size = 0;
  const uint32_t* api = nullptr;
  const int64_t* start_delta = nullptr;  // from the previous call's start (base_ns first)
  const uint64_t* duration = nullptr;
  const int32_t* result = nullptr;
  const uint64_t* correlation = nullptr;
  // kFieldLaunch
  const uint32_t *kernel = nullptr, *grid_x = nullptr, *grid_y = nullptr, *grid_z = nullptr;
  const uint32_t *block_x = nullptr, *block_y = nullptr, *block_z = nullptr;
  const uint32_t* shared_mem = nullptr;
  const uint64_t* stream = nullptr;     // kFieldStream
  const uint64_t* bytes = nullptr;      // kFieldBytes
  const uint64_t* address = nullptr;    // kFieldAddress
  const uint32_t* copy_kind = nullptr;  // kFieldCopyKind
  const uint32_t* runtime = nullptr;    // one per call, or nullptr: none
};

// pb::GpuActivities: every kind known.
struct GpuBatch {
  uint64_t base_ns = 0;
  uint32_t size = 0;
  const uint32_t* kind = nullptr;
  const int64_t* start_delta = nullptr;
  const uint64_t* duration = nullptr;
  const uint64_t* correlation = nullptr;
  const uint32_t *device = nullptr, *stream = nullptr, *graph = nullptr;
  const uint64_t* graph_node = nullptr;
  // kGpuFieldLaunch
  const uint32_t *kernel = nullptr, *grid_x = nullptr, *grid_y = nullptr, *grid_z = nullptr;
  const uint32_t *block_x = nullptr, *block_y = nullptr, *block_z = nullptr;
  const uint32_t *shared_mem = nullptr, *registers = nullptr;
  const uint64_t* bytes = nullptr;  // kGpuFieldBytes
  // kGpuFieldCopy
  const uint32_t *copy_kind = nullptr, *src_kind = nullptr, *peer_device = nullptr;
  const uint32_t* dst_kind = nullptr;  // kGpuFieldTarget
  const uint32_t* detail = nullptr;    // kGpuFieldDetail
};

// pb::Ranges: one thread's NVTX events.
struct RangeBatch {
  uint32_t tid = 0;
  uint64_t base_ns = 0;
  uint32_t size = 0;
  const uint32_t* op = nullptr;
  const int64_t* time_delta = nullptr;
  const uint32_t *name = nullptr, *domain = nullptr, *category = nullptr, *color = nullptr;
  const uint64_t *range_id = nullptr, *payload = nullptr;
  const uint64_t *seq = nullptr, *op_id = nullptr;  // one per event, or nullptr: none
};

// Cursors over a batch's records, in order: next() moves to the next record
// (false after the last), keeping the places of the optional columns; the
// accessors read the current record's values, an optional one only where
// the record has that field. A batch visitor's loop reads what it needs
// through them; record() makes the whole record, as the per-record visitor
// gets it (for_each_api_record and the others below).
class ApiCursor {
 public:
  explicit ApiCursor(const ApiBatch& batch) : b_(batch), start_(batch.base_ns) {}
  bool next() {
    at_launch_ += (fields_ & kFieldLaunch) != 0;
    at_stream_ += (fields_ & kFieldStream) != 0;
    at_bytes_ += (fields_ & kFieldBytes) != 0;
    at_address_ += (fields_ & kFieldAddress) != 0;
    at_copy_kind_ += (fields_ & kFieldCopyKind) != 0;
    if (++i_ >= b_.size) {
      fields_ = 0;
      i_ = b_.size;
      return false;
    }
    start_ += static_cast<uint64_t>(b_.start_delta[i_]);  // wraps like the writer's subtraction
    fields_ = known_api_fields(b_.api[i_]);
    return true;
  }
  uint32_t fields() const { return fields_; }  // kKnownApi | ApiField bits
  ApiId api() const { return static_cast<ApiId>(b_.api[i_]); }
  uint32_t tid() const { return b_.tid; }
  uint64_t start_ns() const { return start_; }
  uint64_t end_ns() const { return start_ + b_.duration[i_]; }
  int32_t result() const { return b_.result[i_]; }
  uint64_t correlation() const { return b_.correlation[i_]; }
  // kFieldLaunch
  uint32_t kernel() const { return b_.kernel[at_launch_]; }
  Dim3 grid() const {
    return {b_.grid_x[at_launch_], b_.grid_y[at_launch_], b_.grid_z[at_launch_]};
  }
  Dim3 block() const {
    return {b_.block_x[at_launch_], b_.block_y[at_launch_], b_.block_z[at_launch_]};
  }
  uint32_t shared_mem() const { return b_.shared_mem[at_launch_]; }
  uint64_t stream() const { return b_.stream[at_stream_]; }           // kFieldStream
  uint64_t bytes() const { return b_.bytes[at_bytes_]; }              // kFieldBytes
  uint64_t address() const { return b_.address[at_address_]; }        // kFieldAddress
  uint32_t copy_kind() const { return b_.copy_kind[at_copy_kind_]; }  // kFieldCopyKind
  uint32_t runtime() const { return b_.runtime != nullptr ? b_.runtime[i_] : 0; }

  ApiRecord record() const {
    ApiRecord r{};
    r.kind = RecordKind::kApi;
    r.api = api();
    r.tid = b_.tid;
    r.start_ns = start_;
    r.end_ns = end_ns();
    r.result = result();
    r.correlation = correlation();
    if (fields_ & kFieldLaunch) {
      r.kernel = kernel();
      r.grid = grid();
      r.block = block();
      r.shared_mem = shared_mem();
    }
    if (fields_ & kFieldStream) r.stream = stream();
    if (fields_ & kFieldBytes) r.bytes = bytes();
    if (fields_ & kFieldAddress) r.address = address();
    if (fields_ & kFieldCopyKind) r.copy_kind = static_cast<uint8_t>(copy_kind());
    r.runtime = static_cast<uint8_t>(runtime());
    return r;
  }

 private:
  const ApiBatch b_;         // a copy: the loop keeps it where the calls it makes cannot change it
  uint32_t i_ = UINT32_MAX;  // next() makes it 0
  uint32_t fields_ = 0;
  uint64_t start_;
  uint32_t at_launch_ = 0, at_stream_ = 0, at_bytes_ = 0, at_address_ = 0, at_copy_kind_ = 0;
};

class GpuCursor {
 public:
  explicit GpuCursor(const GpuBatch& batch) : b_(batch), start_(batch.base_ns) {}
  bool next() {
    at_launch_ += (fields_ & kGpuFieldLaunch) != 0;
    at_bytes_ += (fields_ & kGpuFieldBytes) != 0;
    at_copy_ += (fields_ & kGpuFieldCopy) != 0;
    at_target_ += (fields_ & kGpuFieldTarget) != 0;
    at_detail_ += (fields_ & kGpuFieldDetail) != 0;
    if (++i_ >= b_.size) {
      fields_ = 0;
      i_ = b_.size;
      return false;
    }
    start_ += static_cast<uint64_t>(b_.start_delta[i_]);
    fields_ = gpu_fields(kind());
    return true;
  }
  uint32_t fields() const { return fields_; }  // GpuField bits
  GpuKind kind() const { return static_cast<GpuKind>(b_.kind[i_]); }
  uint64_t start_ns() const { return start_; }
  uint64_t end_ns() const { return start_ + b_.duration[i_]; }
  uint64_t correlation() const { return b_.correlation[i_]; }
  uint32_t device() const { return b_.device[i_]; }
  uint32_t stream() const { return b_.stream[i_]; }
  uint32_t graph() const { return b_.graph[i_]; }
  uint64_t graph_node() const { return b_.graph_node[i_]; }
  // kGpuFieldLaunch
  uint32_t kernel() const { return b_.kernel[at_launch_]; }
  Dim3 grid() const {
    return {b_.grid_x[at_launch_], b_.grid_y[at_launch_], b_.grid_z[at_launch_]};
  }
  Dim3 block() const {
    return {b_.block_x[at_launch_], b_.block_y[at_launch_], b_.block_z[at_launch_]};
  }
  uint32_t shared_mem() const { return b_.shared_mem[at_launch_]; }
  uint32_t registers() const { return b_.registers[at_launch_]; }
  uint64_t bytes() const { return b_.bytes[at_bytes_]; }  // kGpuFieldBytes
  // kGpuFieldCopy
  uint32_t copy_kind() const { return b_.copy_kind[at_copy_]; }
  uint32_t src_kind() const { return b_.src_kind[at_copy_]; }
  uint32_t peer_device() const { return b_.peer_device[at_copy_]; }
  uint32_t dst_kind() const { return b_.dst_kind[at_target_]; }  // kGpuFieldTarget
  uint32_t detail() const { return b_.detail[at_detail_]; }      // kGpuFieldDetail

  GpuRecord record() const {
    GpuRecord r{};
    r.kind = kind();
    r.start_ns = start_;
    r.end_ns = end_ns();
    r.correlation = correlation();
    r.device = device();
    r.stream = stream();
    r.graph = graph();
    r.graph_node = graph_node();
    if (fields_ & kGpuFieldLaunch) {
      r.kernel = kernel();
      r.grid = grid();
      r.block = block();
      r.shared_mem = shared_mem();
      r.registers = registers();
    }
    if (fields_ & kGpuFieldBytes) r.bytes = bytes();
    if (fields_ & kGpuFieldCopy) {
      r.copy_kind = static_cast<uint8_t>(copy_kind());
      r.src_kind = static_cast<uint8_t>(src_kind());
      r.peer_device = peer_device();
    }
    if (fields_ & kGpuFieldTarget) r.dst_kind = static_cast<uint8_t>(dst_kind());
    if (fields_ & kGpuFieldDetail) r.detail = detail();
    return r;
  }

 private:
  const GpuBatch b_;
  uint32_t i_ = UINT32_MAX;
  uint32_t fields_ = 0;
  uint64_t start_;
  uint32_t at_launch_ = 0, at_bytes_ = 0, at_copy_ = 0, at_target_ = 0, at_detail_ = 0;
};

class RangeCursor {
 public:
  explicit RangeCursor(const RangeBatch& batch) : b_(batch), time_(batch.base_ns) {}
  bool next() {
    if (++i_ >= b_.size) {
      i_ = b_.size;
      return false;
    }
    time_ += static_cast<uint64_t>(b_.time_delta[i_]);
    return true;
  }
  RangeOp op() const { return static_cast<RangeOp>(b_.op[i_]); }
  uint32_t tid() const { return b_.tid; }
  uint64_t time_ns() const { return time_; }
  uint32_t name() const { return b_.name[i_]; }
  uint32_t domain() const { return b_.domain[i_]; }
  uint32_t category() const { return b_.category[i_]; }
  uint64_t range_id() const { return b_.range_id[i_]; }
  uint32_t color() const { return b_.color[i_]; }
  uint64_t payload() const { return b_.payload[i_]; }
  uint64_t seq() const { return b_.seq != nullptr ? b_.seq[i_] : 0; }
  uint64_t op_id() const { return b_.op_id != nullptr ? b_.op_id[i_] : 0; }

  RangeEvent event() const {
    RangeEvent e{};
    e.kind = RecordKind::kRange;
    e.tid = b_.tid;
    e.op = op();
    e.time_ns = time_;
    e.name = name();
    e.domain = domain();
    e.category = category();
    e.range_id = range_id();
    e.color = color();
    e.payload = payload();
    e.seq = seq();
    e.op_id = op_id();
    return e;
  }

 private:
  const RangeBatch b_;
  uint32_t i_ = UINT32_MAX;
  uint64_t time_;
};

// The batch's records in order, as the per-record visitor gets them.
template <typename Fn>
void for_each_api_record(const ApiBatch& batch, Fn&& fn) {
  for (ApiCursor c(batch); c.next();) fn(c.record());
}

template <typename Fn>
void for_each_gpu_record(const GpuBatch& batch, Fn&& fn) {
  for (GpuCursor c(batch); c.next();) fn(c.record());
}

template <typename Fn>
void for_each_range_event(const RangeBatch& batch, Fn&& fn) {
  for (RangeCursor c(batch); c.next();) fn(c.event());
}

}  // namespace gprof
