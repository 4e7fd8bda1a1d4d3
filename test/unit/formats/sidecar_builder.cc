#include "test/unit/formats/sidecar_builder.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "formats/api_ids.h"
#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/write/frame_encoder.h"

namespace gprof::test {

pb::ApiCalls encode_batch(uint32_t tid, const std::vector<ApiRecord>& records) {
  pb::ApiCalls batch;
  batch.set_tid(tid);
  // base_ns below the first start, so that start_delta[0] is exercised too.
  const uint64_t base = records.empty() ? 0 : records.front().start_ns - 5;
  batch.set_base_ns(base);
  uint64_t previous = base;
  for (const ApiRecord& r : records) {
    batch.add_api(static_cast<uint32_t>(r.api));
    batch.add_start_delta(static_cast<int64_t>(r.start_ns - previous));
    previous = r.start_ns;
    batch.add_duration(r.end_ns - r.start_ns);
    batch.add_result(r.result);
    batch.add_correlation(r.correlation);
    const uint32_t fields = api_fields(r.api);
    if (fields & kFieldLaunch) {
      batch.add_kernel(r.kernel);
      batch.add_grid_x(r.grid.x);
      batch.add_grid_y(r.grid.y);
      batch.add_grid_z(r.grid.z);
      batch.add_block_x(r.block.x);
      batch.add_block_y(r.block.y);
      batch.add_block_z(r.block.z);
      batch.add_shared_mem(r.shared_mem);
    }
    if (fields & kFieldStream) batch.add_stream(r.stream);
    if (fields & kFieldBytes) batch.add_bytes(r.bytes);
    if (fields & kFieldAddress) batch.add_address(r.address);
    if (fields & kFieldCopyKind) batch.add_copy_kind(r.copy_kind);
  }
  return batch;
}

std::string framed_payload(std::string_view payload) {
  unsigned char head[kFrameHeaderSize];
  store_le32(head, static_cast<uint32_t>(payload.size()));
  store_le32(head + 4, crc32c(payload.data(), payload.size()));
  std::string out(reinterpret_cast<const char*>(head), sizeof head);
  out.append(payload);
  return out;
}

std::string framed(const pb::Frame& frame) {
  return framed_payload(frame.SerializeAsString());
}

std::string preamble(uint32_t version) {
  unsigned char bytes[kFilePreambleSize];
  std::copy(std::begin(kFileMagic), std::end(kFileMagic), bytes);
  store_le32(bytes + sizeof(kFileMagic), version);
  return std::string(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

namespace {

std::string encoded_frame(ByteBuffer& frame) {
  return framed_payload(
      std::string_view(reinterpret_cast<const char*>(frame.data()), frame.size()));
}

}  // namespace

SidecarBuilder& SidecarBuilder::gpu(const std::vector<GpuRecord>& records) {
  GpuActivitiesEncoder encoder;
  for (const GpuRecord& r : records) encoder.add(r);
  ByteBuffer frame;
  encoder.finish(frame);
  return raw(encoded_frame(frame));
}

SidecarBuilder& SidecarBuilder::external(const std::vector<std::pair<uint64_t, uint64_t>>& pairs) {
  ExternalCorrelationsEncoder encoder;
  for (const auto& [correlation, external_id] : pairs) encoder.add(correlation, external_id);
  ByteBuffer frame;
  encoder.finish(frame);
  return raw(encoded_frame(frame));
}

SidecarBuilder& SidecarBuilder::ranges(uint32_t tid, const std::vector<RangeEvent>& events) {
  RangesEncoder encoder;
  encoder.begin(tid);
  for (const RangeEvent& e : events) encoder.add(e);
  ByteBuffer frame;
  encoder.finish(frame);
  return raw(encoded_frame(frame));
}

SidecarBuilder& SidecarBuilder::drain(
    const std::vector<std::pair<uint32_t, std::vector<ApiRecord>>>& calls,
    const std::vector<std::pair<uint32_t, std::vector<RangeEvent>>>& events) {
  pb::Frame f;
  for (const auto& [tid, records] : calls) *f.add_api_calls() = encode_batch(tid, records);
  // Serialized messages concatenate into their merge, repeated fields
  // appended (protobuf encoding guide, "Concatenating messages"): the
  // calls' batches, then the ranges' from the in-process encoder.
  std::string payload = f.SerializeAsString();
  for (const auto& [tid, list] : events) {
    RangesEncoder encoder;
    encoder.begin(tid);
    for (const RangeEvent& e : list) encoder.add(e);
    ByteBuffer ranges;
    encoder.finish(ranges);
    payload.append(reinterpret_cast<const char*>(ranges.data()), ranges.size());
  }
  return raw(framed_payload(payload));
}

SidecarBuilder& SidecarBuilder::named(
    StringKindForTests kind, const std::vector<std::pair<uint32_t, std::string>>& strings) {
  pb::Frame f;
  for (const auto& [id, value] : strings) {
    pb::StringEntry* e = f.add_strings();
    e->set_id(id);
    e->set_kind(kind);
    e->set_value(value);
  }
  return frame(f);
}

RangeEvent make_range_event(RangeOp op, uint64_t time_ns, uint32_t name, uint64_t range_id) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = op;
  e.time_ns = time_ns;
  e.name = name;
  e.range_id = range_id;
  return e;
}

SidecarBuilder& SidecarBuilder::cupti(const pb::CuptiStatus& status) {
  pb::Frame f;
  *f.mutable_cupti() = status;
  return frame(f);
}

GpuRecord make_kernel(uint32_t kernel, uint64_t start_ns, uint64_t duration_ns,
                      uint64_t correlation) {
  GpuRecord r{};
  r.kind = GpuKind::kKernel;
  r.start_ns = start_ns;
  r.end_ns = start_ns + duration_ns;
  r.correlation = correlation;
  r.kernel = kernel;
  r.stream = 7;
  r.grid = {4096, 1, 1};
  r.block = {256, 1, 1};
  r.registers = 32;
  return r;
}

GpuRecord make_copy(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind, uint64_t bytes,
                    uint64_t start_ns, uint64_t duration_ns, uint64_t correlation) {
  GpuRecord r{};
  r.kind = GpuKind::kMemcpy;
  r.start_ns = start_ns;
  r.end_ns = start_ns + duration_ns;
  r.correlation = correlation;
  r.copy_kind = copy_kind;
  r.src_kind = src_kind;
  r.dst_kind = dst_kind;
  r.bytes = bytes;
  r.stream = 7;
  return r;
}

SidecarBuilder::SidecarBuilder(uint32_t version) : bytes_(preamble(version)) {}
SidecarBuilder::SidecarBuilder() : SidecarBuilder(kFormatVersion) {}

SidecarBuilder& SidecarBuilder::header(const pb::FileHeader& header) {
  pb::Frame f;
  *f.mutable_header() = header;
  return frame(f);
}

SidecarBuilder& SidecarBuilder::strings(
    const std::vector<std::pair<uint32_t, std::string>>& kernels) {
  pb::Frame f;
  for (const auto& [id, name] : kernels) {
    pb::StringEntry* entry = f.add_strings();
    entry->set_id(id);
    entry->set_kind(pb::StringEntry::KERNEL);
    entry->set_value(name);
  }
  return frame(f);
}

SidecarBuilder& SidecarBuilder::calls(uint32_t tid, const std::vector<ApiRecord>& records) {
  pb::Frame f;
  *f.add_api_calls() = encode_batch(tid, records);
  return frame(f);
}

SidecarBuilder& SidecarBuilder::frame(const pb::Frame& frame) {
  return raw(framed(frame));
}

SidecarBuilder& SidecarBuilder::footer(const pb::Footer& footer) {
  pb::Frame f;
  *f.mutable_footer() = footer;
  return frame(f);
}

SidecarBuilder& SidecarBuilder::raw(std::string_view bytes) {
  offsets_.push_back(bytes_.size());
  bytes_.append(bytes);
  return *this;
}

namespace {

// Removed with its files when the test program exits.
struct ScratchDir {
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gprof-unit-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

}  // namespace

std::string write_temp_file(const std::string& name, std::string_view bytes) {
  static const ScratchDir dir;
  const std::filesystem::path path = dir.path / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path.string();
}

pb::FileHeader test_header() {
  pb::FileHeader h;
  h.set_format_version(kFormatVersion);
  h.set_pid(42);
  h.set_ppid(1);
  h.set_host("testhost");
  h.add_argv("./train");
  h.add_argv("--epochs");
  h.add_argv("3");
  h.set_start_wall_ns(1714566896123456789u);
  h.set_gprof_version("0.1.0");
  h.mutable_clock()->set_name("CLOCK_MONOTONIC");
  h.set_cuda_runtime_version(13000);
  h.set_cuda_driver_version(12080);
  return h;
}

pb::FileHeader capture_window_header() {
  pb::FileHeader h = test_header();
  pb::ConfigEntry& capture = *h.add_config();
  capture.set_key("capture");
  capture.set_value("cudaProfilerApi");
  return h;
}

ApiRecord make_call(ApiId api, uint64_t start_ns, uint64_t duration_ns) {
  ApiRecord r{};
  r.kind = RecordKind::kApi;
  r.api = api;
  r.start_ns = start_ns;
  r.end_ns = start_ns + duration_ns;
  return r;
}

}  // namespace gprof::test
