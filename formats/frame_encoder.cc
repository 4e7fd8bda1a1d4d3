#include "formats/frame_encoder.h"

#include "formats/crc32c.h"
#include "formats/framing.h"

namespace gprof {
namespace {

// pb::Frame field numbers.
constexpr uint32_t kFrameHeader = 1, kFrameStrings = 2, kFrameApiCalls = 3, kFrameFooter = 4;

}  // namespace

void ApiCallsEncoder::begin(uint32_t tid) {
  for (ByteBuffer& column : columns_) column.clear();
  tid_ = tid;
  base_ns_ = 0;
  previous_start_ = 0;
  count_ = 0;
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
}

void ApiCallsEncoder::finish(ByteBuffer& frame) {
  scratch_.clear();
  put_uint64(scratch_, 1, tid_);
  put_uint64(scratch_, 2, base_ns_);
  // Column i is pb::ApiCalls field i + 3 (gprof.proto).
  for (int i = 0; i < kColumnCount; ++i)
    put_packed(scratch_, static_cast<uint32_t>(i + 3), columns_[i]);
  put_message(frame, kFrameApiCalls, scratch_);
  begin(tid_);
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
