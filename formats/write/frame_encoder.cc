#include "formats/write/frame_encoder.h"

#include "formats/crc32c.h"
#include "formats/framing.h"

namespace gprof {
namespace {

// pb::Frame field numbers.
constexpr uint32_t kFrameHeader = 1, kFrameStrings = 2, kFrameApiCalls = 3, kFrameFooter = 4,
                   kFrameGpuActivities = 5, kFrameExternalCorrelations = 6, kFrameCupti = 7,
                   kFrameRanges = 8, kFrameDevices = 9;

}  // namespace

void ApiCallsEncoder::begin(uint32_t tid) {
  for (ByteBuffer& column : columns_) column.clear();
  tid_ = tid;
  base_ns_ = 0;
  previous_start_ = 0;
  count_ = 0;
  any_runtime_ = false;
}

void ApiCallsEncoder::add(const ApiRecord& r) {
  if (count_ == 0) {
    base_ns_ = r.start_ns;
    previous_start_ = r.start_ns;
  }
  ++count_;
  const uint32_t fields = api_fields(r.api);
  put_varint(columns_[kApi], static_cast<uint16_t>(r.api));
  put_varint(columns_[kStartDelta], zigzag64(static_cast<int64_t>(r.start_ns - previous_start_)));
  previous_start_ = r.start_ns;
  put_varint(columns_[kDuration], r.end_ns >= r.start_ns ? r.end_ns - r.start_ns : 0);
  put_varint(columns_[kResult], zigzag64(r.result));
  put_varint(columns_[kCorrelation], r.correlation);
  if (fields & kFieldLaunch) {
    put_varint(columns_[kKernel], r.kernel);
    put_varint(columns_[kGridX], r.grid.x);
    put_varint(columns_[kGridY], r.grid.y);
    put_varint(columns_[kGridZ], r.grid.z);
    put_varint(columns_[kBlockX], r.block.x);
    put_varint(columns_[kBlockY], r.block.y);
    put_varint(columns_[kBlockZ], r.block.z);
    put_varint(columns_[kSharedMem], r.shared_mem);
  }
  if (fields & kFieldStream) put_varint(columns_[kStream], r.stream);
  if (fields & kFieldBytes) put_varint(columns_[kBytes], r.bytes);
  if (fields & kFieldAddress) put_varint(columns_[kAddress], r.address);
  if (fields & kFieldCopyKind) put_varint(columns_[kCopyKind], r.copy_kind);
  put_varint(columns_[kRuntime], r.runtime);
  any_runtime_ |= r.runtime != 0;
}

void ApiCallsEncoder::finish(ByteBuffer& frame) {
  scratch_.clear();
  put_uint64(scratch_, 1, tid_);
  put_uint64(scratch_, 2, base_ns_);
  // Column i is pb::ApiCalls field kFirstColumn + i (batch_fields.h); the runtime column
  // only when a call of the batch knows its runtime.
  if (!any_runtime_) columns_[kRuntime].clear();
  for (int i = 0; i < kColumnCount; ++i)
    put_packed(scratch_, batch_fields::api_calls::kFirstColumn + static_cast<uint32_t>(i),
               columns_[i]);
  put_message(frame, kFrameApiCalls, scratch_);
  begin(tid_);
}

void RangesEncoder::begin(uint32_t tid) {
  for (ByteBuffer& column : columns_) column.clear();
  for (bool& started : started_) started = false;
  tid_ = tid;
  base_ns_ = 0;
  previous_ = 0;
  count_ = 0;
}

void RangesEncoder::add(const RangeEvent& e) {
  if (count_ == 0) {
    base_ns_ = e.time_ns;
    previous_ = e.time_ns;
  }
  ++count_;
  put_varint(columns_[kOp], static_cast<uint8_t>(e.op));
  put_varint(columns_[kTimeDelta], zigzag64(static_cast<int64_t>(e.time_ns - previous_)));
  previous_ = e.time_ns;
  put_varint(columns_[kName], e.name);
  put_varint(columns_[kDomain], e.domain);
  put_varint(columns_[kCategory], e.category);
  put_varint(columns_[kRangeId], e.range_id);
  put_varint(columns_[kColor], e.color);
  put_varint(columns_[kPayload], e.payload);
  add_optional(kSeq, e.seq);
  add_optional(kOpId, e.op_id);
}

void RangesEncoder::add_optional(Column column, uint64_t value) {
  ByteBuffer& out = columns_[column];
  if (!started_[column]) {
    if (value == 0) return;
    // The events before this one had none: a zero (one byte) for each.
    for (size_t i = 1; i < count_; ++i) out.push(0);
    started_[column] = true;
  }
  put_varint(out, value);
}

void RangesEncoder::finish(ByteBuffer& frame) {
  scratch_.clear();
  put_uint64(scratch_, 1, tid_);
  put_uint64(scratch_, 2, base_ns_);
  // Column i is pb::Ranges field kFirstColumn + i (batch_fields.h); an optional column
  // that never started is empty and omitted.
  for (int i = 0; i < kCount; ++i)
    put_packed(scratch_, batch_fields::ranges::kFirstColumn + static_cast<uint32_t>(i),
               columns_[i]);
  put_message(frame, kFrameRanges, scratch_);
  begin(tid_);
}

void GpuActivitiesEncoder::clear() {
  for (ByteBuffer& column : columns_) column.clear();
  base_ns_ = 0;
  previous_start_ = 0;
  count_ = 0;
}

void GpuActivitiesEncoder::add(const GpuRecord& r) {
  if (count_ == 0) {
    base_ns_ = r.start_ns;
    previous_start_ = r.start_ns;
  }
  ++count_;
  const uint32_t fields = gpu_fields(r.kind);
  put_varint(columns_[kKind], static_cast<uint8_t>(r.kind));
  put_varint(columns_[kStartDelta], zigzag64(static_cast<int64_t>(r.start_ns - previous_start_)));
  previous_start_ = r.start_ns;
  put_varint(columns_[kDuration], r.end_ns >= r.start_ns ? r.end_ns - r.start_ns : 0);
  put_varint(columns_[kCorrelation], r.correlation);
  put_varint(columns_[kDevice], r.device);
  put_varint(columns_[kStream], r.stream);
  put_varint(columns_[kGraph], r.graph);
  put_varint(columns_[kGraphNode], r.graph_node);
  if (fields & kGpuFieldLaunch) {
    put_varint(columns_[kKernel], r.kernel);
    put_varint(columns_[kGridX], r.grid.x);
    put_varint(columns_[kGridY], r.grid.y);
    put_varint(columns_[kGridZ], r.grid.z);
    put_varint(columns_[kBlockX], r.block.x);
    put_varint(columns_[kBlockY], r.block.y);
    put_varint(columns_[kBlockZ], r.block.z);
    put_varint(columns_[kSharedMem], r.shared_mem);
    put_varint(columns_[kRegisters], r.registers);
  }
  if (fields & kGpuFieldBytes) put_varint(columns_[kBytes], r.bytes);
  if (fields & kGpuFieldCopy) {
    put_varint(columns_[kCopyKind], r.copy_kind);
    put_varint(columns_[kSrcKind], r.src_kind);
    put_varint(columns_[kPeerDevice], r.peer_device);
  }
  if (fields & kGpuFieldTarget) put_varint(columns_[kDstKind], r.dst_kind);
  if (fields & kGpuFieldDetail) put_varint(columns_[kDetail], r.detail);
}

void GpuActivitiesEncoder::finish(ByteBuffer& frame) {
  scratch_.clear();
  put_uint64(scratch_, 1, base_ns_);
  // Column i is pb::GpuActivities field kFirstColumn + i (batch_fields.h).
  for (int i = 0; i < kColumnCount; ++i)
    put_packed(scratch_, batch_fields::gpu_activities::kFirstColumn + static_cast<uint32_t>(i),
               columns_[i]);
  put_message(frame, kFrameGpuActivities, scratch_);
  clear();
}

void ExternalCorrelationsEncoder::add(uint64_t correlation, uint64_t external_id) {
  put_varint(correlation_, correlation);
  put_varint(external_, external_id);
  ++count_;
}

void ExternalCorrelationsEncoder::finish(ByteBuffer& frame) {
  scratch_.clear();
  put_packed(scratch_, 1, correlation_);
  put_packed(scratch_, 2, external_);
  put_message(frame, kFrameExternalCorrelations, scratch_);
  correlation_.clear();
  external_.clear();
  count_ = 0;
}

void encode_cupti_status(ByteBuffer& frame, const CuptiStatusFields& s) {
  ByteBuffer body;
  put_uint64(body, 1, static_cast<uint32_t>(s.state));
  put_uint64(body, 2, s.version);
  put_string(body, 3, s.library);
  put_bool(body, 4, s.timestamps_aligned);
  put_sint64(body, 5, s.clock_offset_ns);
  put_uint64(body, 6, s.offset_uncertainty_ns);
  put_string(body, 7, s.reason);
  for (size_t i = 0; i < s.activity_kind_count; ++i) {
    const std::string_view kind = s.activity_kinds[i];
    put_tag(body, 8, WireType::kLengthDelimited);
    put_varint(body, kind.size());
    body.append(kind.data(), kind.size());
  }
  put_string(body, 9, s.injection);
  put_string(body, 12, s.attach);
  put_uint64(body, 10, s.buffer_bytes);
  put_uint64(body, 11, s.buffer_count);
  for (size_t i = 0; i < s.gap_count; ++i) {
    const CuptiGapFields& g = s.gaps[i];
    ByteBuffer gap;
    put_uint64(gap, 1, g.start_ns);
    put_uint64(gap, 2, g.end_ns);
    put_string(gap, 3, g.reason);
    put_uint64(gap, 4, g.gpu_records_before);
    put_uint64(gap, 5, g.gpu_records_at_end);
    put_bool(gap, 6, g.clock_replaced);
    put_message(body, 40, gap);
  }
  put_uint64(body, 41, s.gaps_not_kept);
  if (s.window_count != 0) {
    ByteBuffer packed;
    for (size_t i = 0; i < 2 * s.window_count; ++i) put_varint(packed, s.windows[i]);
    put_packed(body, 42, packed);
  }
  put_uint64(body, 43, s.windows_not_kept);
  put_bool(body, 44, s.windows_recorded);
  put_message(frame, kFrameCupti, body);
}

void encode_devices(ByteBuffer& frame, const DeviceFields* devices, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const DeviceFields& d = devices[i];
    ByteBuffer body;
    put_uint64(body, 1, d.ordinal);
    put_string(body, 2, d.name);
    put_uint64(body, 3, d.compute_major);
    put_uint64(body, 4, d.compute_minor);
    put_uint64(body, 5, d.sm_count);
    put_uint64(body, 6, d.total_memory);
    put_string(body, 7, d.pci_bus_id);
    if (d.driver_version > 0) put_uint64(body, 8, static_cast<uint64_t>(d.driver_version));
    put_message(frame, kFrameDevices, body);
  }
}

void encode_header(ByteBuffer& frame, const HeaderFields& h) {
  ByteBuffer body;
  put_uint64(body, 1, kFormatVersion);
  put_uint64(body, 2, h.pid);
  put_uint64(body, 3, h.ppid);
  put_string(body, 4, h.host);
  for (size_t i = 0; i < h.argc; ++i) {
    // An empty argument still occupies its position.
    std::string_view arg = h.argv[i] ? h.argv[i] : "";
    put_tag(body, 5, WireType::kLengthDelimited);
    put_varint(body, arg.size());
    body.append(arg.data(), arg.size());
  }
  put_uint64(body, 6, h.start_wall_ns);
  put_uint64(body, 7, h.start_clock_ns);
  ByteBuffer clock;
  put_string(clock, 1, h.clock_name);
  put_sint64(clock, 2, h.clock_offset_to_wall_ns);
  put_message(body, 8, clock);
  if (h.cuda_runtime_version > 0)
    put_uint64(body, 9, static_cast<uint64_t>(h.cuda_runtime_version));
  if (h.cuda_driver_version > 0) put_uint64(body, 10, static_cast<uint64_t>(h.cuda_driver_version));
  put_string(body, 11, h.rank);
  put_string(body, 12, h.gprof_version);
  for (size_t i = 0; i < h.config_count; ++i) {
    ByteBuffer entry;
    put_string(entry, 1, h.config[i].key);
    put_string(entry, 2, h.config[i].value);
    put_message(body, 13, entry);
  }
  put_string(body, 15, h.exe);
  put_message(frame, kFrameHeader, body);
}

void encode_string(ByteBuffer& frame, uint32_t id, StringKind kind, std::string_view value) {
  ByteBuffer body;
  put_uint64(body, 1, id);
  put_uint64(body, 2, static_cast<uint32_t>(kind));
  put_string(body, 3, value);
  put_message(frame, kFrameStrings, body);
}

void encode_footer(ByteBuffer& frame, const FooterFields& f) {
  ByteBuffer body;
  put_uint64(body, 1, f.end_wall_ns);
  put_uint64(body, 2, f.end_clock_ns);
  put_uint64(body, 3, f.api_records);
  for (size_t i = 0; i < f.loss_count; ++i) {
    ByteBuffer loss;
    put_string(loss, 1, f.losses[i].reason);
    put_uint64(loss, 2, f.losses[i].count);
    put_message(body, 4, loss);
  }
  put_uint64(body, 5, f.frames);
  put_bool(body, 6, f.flush_timed_out);
  put_uint64(body, 7, f.gpu_records);
  put_uint64(body, 8, f.holds);
  put_uint64(body, 9, f.held_ns);
  put_uint64(body, 10, f.max_held_ns);
  put_uint64(body, 11, f.peak_queue_bytes);
  put_uint64(body, 12, f.max_queue_bytes);
  if (!f.timestamp_source.empty()) {
    ByteBuffer calibration;
    put_string(calibration, 1, f.timestamp_source);
    put_double(calibration, 2, f.ticks_per_second);
    put_uint64(calibration, 3, f.calibration_pairs);
    put_uint64(calibration, 4, f.max_uncertainty_ns);
    put_uint64(calibration, 5, f.max_residual_ns);
    put_message(body, 13, calibration);
  }
  put_uint64(body, 14, f.thread_mapped_bytes);
  put_uint64(body, 15, f.output_reopens);
  put_message(frame, kFrameFooter, body);
}

void encode_preamble(ByteBuffer& out) {
  out.append(kFileMagic, sizeof kFileMagic);
  unsigned char version[4];
  store_le32(version, kFormatVersion);
  out.append(version, sizeof version);
}

void encode_frame_header(const ByteBuffer& payload, unsigned char out[8]) {
  store_le32(out, static_cast<uint32_t>(payload.size()));
  store_le32(out + 4, crc32c(payload.data(), payload.size()));
}

}  // namespace gprof
