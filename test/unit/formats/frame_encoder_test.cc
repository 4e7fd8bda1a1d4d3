// The in-process encoder writes protobuf without libprotobuf; libprotobuf
// must read back exactly what it wrote (DESIGN.md §2.4).
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "formats/crc32c.h"
#include "formats/frame_encoder.h"
#include "formats/framing.h"
#include "formats/gprof.pb.h"
#include "formats/reader.h"

using namespace gprof;

namespace {

std::vector<ApiId> all_apis() {
  std::vector<ApiId> ids;
  for (int i = 1; i < 200; ++i)
    if (api_info(static_cast<ApiId>(i))) ids.push_back(static_cast<ApiId>(i));
  return ids;
}

// Records with every API and values across the varint size range.
std::vector<ApiRecord> sample_records(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto big = [&] { return rng() >> (rng() % 64); };
  std::vector<ApiId> apis = all_apis();
  std::vector<ApiRecord> records;
  uint64_t t = 1'000'000'000'000ull;
  for (size_t i = 0; i < n; ++i) {
    ApiRecord r{};
    r.api = apis[i % apis.size()];
    // Starts are mostly increasing but may step back (records arrive in end order).
    t = t + (rng() % 100000) - (i % 7 == 0 ? 30000 : 0);
    r.start_ns = t;
    r.end_ns = t + rng() % 5'000'000;
    r.result = (i % 5 == 0) ? static_cast<int32_t>(rng() % 1000) : 0;
    r.correlation = i % 3 ? big() : 0;
    const uint32_t fields = api_fields(r.api);
    if (fields & kFieldLaunch) {
      r.kernel = static_cast<uint32_t>(rng() % 5000);
      r.grid = {static_cast<uint32_t>(big()), 1, static_cast<uint32_t>(rng() % 65536)};
      r.block = {static_cast<uint32_t>(rng() % 1025), static_cast<uint32_t>(rng() % 3), 1};
      r.shared_mem = static_cast<uint32_t>(rng() % 200000);
    }
    if (fields & kFieldStream) r.stream = i % 4 ? big() : 0;
    if (fields & kFieldBytes) r.bytes = big();
    if (fields & kFieldAddress) r.address = big();
    if (fields & kFieldCopyKind) r.copy_kind = static_cast<uint8_t>(rng() % 5);
    records.push_back(r);
  }
  return records;
}

std::string as_string(const ByteBuffer& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace

TEST_CASE("every API call column parses with libprotobuf to the encoded values") {
  std::vector<ApiRecord> records = sample_records(3000, 1);
  ApiCallsEncoder encoder;
  encoder.begin(4242);
  for (const ApiRecord& r : records) encoder.add(r);
  ByteBuffer frame;
  encoder.finish(frame);

  pb::Frame parsed;
  REQUIRE(parsed.ParseFromString(as_string(frame)));
  REQUIRE(parsed.api_calls_size() == 1);
  const pb::ApiCalls& c = parsed.api_calls(0);
  CHECK(c.tid() == 4242);
  REQUIRE(c.api_size() == static_cast<int>(records.size()));
  uint64_t start = c.base_ns();
  size_t launch = 0, stream = 0, bytes = 0, address = 0, kind = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const ApiRecord& r = records[i];
    start += static_cast<uint64_t>(c.start_delta(static_cast<int>(i)));
    INFO("record " << i);
    REQUIRE(c.api(static_cast<int>(i)) == static_cast<uint32_t>(r.api));
    REQUIRE(start == r.start_ns);
    REQUIRE(c.duration(static_cast<int>(i)) == r.end_ns - r.start_ns);
    REQUIRE(c.result(static_cast<int>(i)) == r.result);
    REQUIRE(c.correlation(static_cast<int>(i)) == r.correlation);
    const uint32_t fields = api_fields(r.api);
    if (fields & kFieldLaunch) {
      int k = static_cast<int>(launch++);
      REQUIRE(c.kernel(k) == r.kernel);
      REQUIRE(c.grid_x(k) == r.grid.x);
      REQUIRE(c.grid_y(k) == r.grid.y);
      REQUIRE(c.grid_z(k) == r.grid.z);
      REQUIRE(c.block_x(k) == r.block.x);
      REQUIRE(c.block_y(k) == r.block.y);
      REQUIRE(c.block_z(k) == r.block.z);
      REQUIRE(c.shared_mem(k) == r.shared_mem);
    }
    if (fields & kFieldStream) REQUIRE(c.stream(static_cast<int>(stream++)) == r.stream);
    if (fields & kFieldBytes) REQUIRE(c.bytes(static_cast<int>(bytes++)) == r.bytes);
    if (fields & kFieldAddress) REQUIRE(c.address(static_cast<int>(address++)) == r.address);
    if (fields & kFieldCopyKind) REQUIRE(c.copy_kind(static_cast<int>(kind++)) == r.copy_kind);
  }
  CHECK(c.kernel_size() == static_cast<int>(launch));
  CHECK(c.stream_size() == static_cast<int>(stream));
  CHECK(c.bytes_size() == static_cast<int>(bytes));
  CHECK(c.address_size() == static_cast<int>(address));
  CHECK(c.copy_kind_size() == static_cast<int>(kind));
}

TEST_CASE("header, strings and footer parse with libprotobuf") {
  const char* argv[] = {"./train", "", "--epochs=3"};
  const KeyValue config[] = {{"output", "x-%p.gprof"}, {"buffer_size", "4096"}};
  HeaderFields h;
  h.pid = 77;
  h.ppid = 1;
  h.host = "node";
  h.argv = argv;
  h.argc = 3;
  h.exe = "/bin/train";
  h.start_wall_ns = 1'700'000'000'000'000'000ull;
  h.start_clock_ns = 123;
  h.clock_name = "CLOCK_MONOTONIC";
  h.clock_offset_to_wall_ns = -5;
  h.cuda_runtime_version = 13000;
  h.rank = "3";
  h.gprof_version = "0.1.0";
  h.config = config;
  h.config_count = 2;
  ByteBuffer frame;
  encode_header(frame, h);
  encode_string(frame, 9, StringKind::kKernel, "_Z6kernelPf");
  const LossCount losses[] = {{"ring_full", 12}, {"no_ring", 1}};
  FooterFields f;
  f.end_wall_ns = 5;
  f.end_clock_ns = 6;
  f.api_records = 1000;
  f.frames = 4;
  f.losses = losses;
  f.loss_count = 2;
  encode_footer(frame, f);

  pb::Frame parsed;
  REQUIRE(parsed.ParseFromString(as_string(frame)));
  const pb::FileHeader& ph = parsed.header();
  CHECK(ph.format_version() == kFormatVersion);
  CHECK(ph.pid() == 77);
  CHECK(ph.ppid() == 1);
  CHECK(ph.host() == "node");
  REQUIRE(ph.argv_size() == 3);
  CHECK(ph.argv(0) == "./train");
  CHECK(ph.argv(1).empty());
  CHECK(ph.argv(2) == "--epochs=3");
  CHECK(ph.exe() == "/bin/train");
  CHECK(ph.start_wall_ns() == h.start_wall_ns);
  CHECK(ph.start_clock_ns() == 123);
  CHECK(ph.clock().name() == "CLOCK_MONOTONIC");
  CHECK(ph.clock().offset_to_wall_ns() == -5);
  CHECK(ph.cuda_runtime_version() == 13000);
  CHECK(ph.rank() == "3");
  CHECK(ph.gprof_version() == "0.1.0");
  REQUIRE(ph.config_size() == 2);
  CHECK(ph.config(1).key() == "buffer_size");
  CHECK(ph.config(1).value() == "4096");
  REQUIRE(parsed.strings_size() == 1);
  CHECK(parsed.strings(0).id() == 9);
  CHECK(parsed.strings(0).kind() == pb::StringEntry::KERNEL);
  CHECK(parsed.strings(0).value() == "_Z6kernelPf");
  const pb::Footer& pf = parsed.footer();
  CHECK(pf.api_records() == 1000);
  CHECK(pf.frames() == 4);
  REQUIRE(pf.losses_size() == 2);
  CHECK(pf.losses(0).reason() == "ring_full");
  CHECK(pf.losses(0).count() == 12);

  // libprotobuf's own encoding of the same message is byte-identical.
  CHECK(parsed.SerializeAsString() == as_string(frame));
}

TEST_CASE("a file written by the encoder reads back record for record") {
  std::vector<ApiRecord> records = sample_records(5000, 2);
  std::string path = "/tmp/gprof-encoder-roundtrip-" + std::to_string(getpid()) + ".gprof";
  FILE* file = std::fopen(path.c_str(), "wb");
  REQUIRE(file);
  auto write_frame = [&](const ByteBuffer& payload) {
    unsigned char header[kFrameHeaderSize];
    encode_frame_header(payload, header);
    std::fwrite(header, 1, sizeof header, file);
    std::fwrite(payload.data(), 1, payload.size(), file);
  };
  ByteBuffer preamble;
  encode_preamble(preamble);
  std::fwrite(preamble.data(), 1, preamble.size(), file);
  ByteBuffer frame;
  HeaderFields h;
  h.pid = 1;
  encode_header(frame, h);
  write_frame(frame);
  ApiCallsEncoder encoder;
  for (size_t at = 0; at < records.size(); at += 1000) {
    frame.clear();
    encode_string(frame, static_cast<uint32_t>(at + 1), StringKind::kKernel, "k");
    encoder.begin(static_cast<uint32_t>(100 + at));
    for (size_t i = at; i < at + 1000; ++i) encoder.add(records[i]);
    encoder.finish(frame);
    write_frame(frame);
  }
  frame.clear();
  FooterFields f;
  f.api_records = records.size();
  encode_footer(frame, f);
  write_frame(frame);
  std::fclose(file);

  struct Collect : RecordVisitor {
    std::vector<ApiRecord> seen;
    int strings = 0;
    void on_string(const pb::StringEntry&) override { ++strings; }
    void on_api(const ApiRecord& r) override { seen.push_back(r); }
  } visitor;
  ReadStatus status = read_file(path, visitor);
  std::remove(path.c_str());
  REQUIRE(status.opened);
  CHECK(status.complete);
  CHECK(status.bad_frames == 0);
  CHECK(visitor.strings == 5);
  REQUIRE(visitor.seen.size() == records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const ApiRecord& a = records[i];
    const ApiRecord& b = visitor.seen[i];
    INFO("record " << i);
    REQUIRE(b.tid == 100 + (i / 1000) * 1000);
    REQUIRE(b.api == a.api);
    REQUIRE(b.start_ns == a.start_ns);
    REQUIRE(b.end_ns == a.end_ns);
    REQUIRE(b.result == a.result);
    REQUIRE(b.correlation == a.correlation);
    REQUIRE(b.kernel == a.kernel);
    REQUIRE(b.grid.x == a.grid.x);
    REQUIRE(b.block.y == a.block.y);
    REQUIRE(b.shared_mem == a.shared_mem);
    REQUIRE(b.stream == a.stream);
    REQUIRE(b.bytes == a.bytes);
    REQUIRE(b.address == a.address);
    REQUIRE(b.copy_kind == a.copy_kind);
  }
}

TEST_CASE("crc32c matches the Castagnoli check value") {
  CHECK(crc32c("123456789", 9) == 0xE3069283u);
}
