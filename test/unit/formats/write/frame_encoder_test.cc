// The in-process encoder writes protobuf without libprotobuf; libprotobuf
// must read back exactly what it wrote (docs/architecture.md §2.5).
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/gprof.pb.h"
#include "formats/read/reader.h"
#include "formats/write/frame_encoder.h"

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

namespace {

RangeEvent range_event(RangeOp op, uint64_t time_ns, uint64_t seq, uint64_t op_id) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = op;
  e.time_ns = time_ns;
  e.name = op == RangeOp::kPush ? 5 : 0;
  e.seq = seq;
  e.op_id = op_id;
  return e;
}

pb::Ranges encode_ranges(RangesEncoder& encoder, const std::vector<RangeEvent>& events) {
  encoder.begin(7);
  for (const RangeEvent& e : events) encoder.add(e);
  ByteBuffer frame;
  encoder.finish(frame);
  pb::Frame parsed;
  REQUIRE(parsed.ParseFromString(as_string(frame)));
  REQUIRE(parsed.ranges_size() == 1);
  // libprotobuf's own encoding of the same message is byte-identical.
  CHECK(parsed.SerializeAsString() == as_string(frame));
  return parsed.ranges(0);
}

}  // namespace

TEST_CASE("NVTX seq and op_id columns are empty when no event of the batch has one") {
  RangesEncoder encoder;
  const pb::Ranges r = encode_ranges(
      encoder, {range_event(RangeOp::kPush, 100, 0, 0), range_event(RangeOp::kPop, 200, 0, 0)});
  CHECK(r.op_size() == 2);
  CHECK(r.seq_size() == 0);
  CHECK(r.op_id_size() == 0);
}

TEST_CASE("NVTX seq and op_id columns hold one entry per event once one event has a value") {
  RangesEncoder encoder;
  // seq starts on the second event, op_id on the third; both are independent.
  const pb::Ranges r = encode_ranges(encoder, {
                                                  range_event(RangeOp::kPush, 100, 0, 0),
                                                  range_event(RangeOp::kPush, 110, 13, 0),
                                                  range_event(RangeOp::kPop, 120, 0, 34),
                                                  range_event(RangeOp::kPush, 130, 1ull << 40, 1),
                                                  range_event(RangeOp::kPop, 140, 0, 0),
                                              });
  REQUIRE(r.seq_size() == 5);
  CHECK(r.seq(0) == 0);
  CHECK(r.seq(1) == 13);
  CHECK(r.seq(2) == 0);
  CHECK(r.seq(3) == (1ull << 40));
  CHECK(r.seq(4) == 0);
  REQUIRE(r.op_id_size() == 5);
  CHECK(r.op_id(0) == 0);
  CHECK(r.op_id(1) == 0);
  CHECK(r.op_id(2) == 34);
  CHECK(r.op_id(3) == 1);
  CHECK(r.op_id(4) == 0);

  SECTION("the next batch of the same encoder starts empty again") {
    const pb::Ranges next = encode_ranges(encoder, {range_event(RangeOp::kPush, 150, 0, 0)});
    CHECK(next.seq_size() == 0);
    CHECK(next.op_id_size() == 0);
  }
  SECTION("a batch whose first event has a value needs no zeros before it") {
    const pb::Ranges next = encode_ranges(
        encoder, {range_event(RangeOp::kPush, 150, 0, 9), range_event(RangeOp::kPop, 160, 0, 0)});
    CHECK(next.seq_size() == 0);
    REQUIRE(next.op_id_size() == 2);
    CHECK(next.op_id(0) == 9);
    CHECK(next.op_id(1) == 0);
  }
}

TEST_CASE("footer holds, queue memory and timestamp calibration parse with libprotobuf") {
  const LossCount losses[] = {{"wait_timeout", 3}, {"thread_exit", 1}};
  FooterFields f;
  f.api_records = 10;
  f.losses = losses;
  f.loss_count = 2;
  f.gpu_records = 4;
  f.holds = 3;
  f.held_ns = 12'500'000;
  f.max_held_ns = 4'100'000;
  f.peak_queue_bytes = 12ull << 20;
  f.max_queue_bytes = 256ull << 20;
  f.timestamp_source = "tsc";
  f.ticks_per_second = 2.995e9;
  f.calibration_pairs = 57;
  f.max_uncertainty_ns = 31;
  f.max_residual_ns = 12;
  ByteBuffer frame;
  encode_footer(frame, f);

  pb::Frame parsed;
  REQUIRE(parsed.ParseFromString(as_string(frame)));
  REQUIRE(parsed.has_footer());
  const pb::Footer& pf = parsed.footer();
  CHECK(pf.api_records() == 10);
  CHECK(pf.gpu_records() == 4);
  REQUIRE(pf.losses_size() == 2);
  CHECK(pf.losses(0).reason() == "wait_timeout");
  CHECK(pf.losses(1).reason() == "thread_exit");
  CHECK(pf.holds() == 3);
  CHECK(pf.held_ns() == 12'500'000);
  CHECK(pf.max_held_ns() == 4'100'000);
  CHECK(pf.peak_queue_bytes() == (12ull << 20));
  CHECK(pf.max_queue_bytes() == (256ull << 20));
  REQUIRE(pf.has_timestamps());
  CHECK(pf.timestamps().source() == "tsc");
  CHECK(pf.timestamps().ticks_per_second() == 2.995e9);
  CHECK(pf.timestamps().pairs() == 57);
  CHECK(pf.timestamps().max_uncertainty_ns() == 31);
  CHECK(pf.timestamps().max_residual_ns() == 12);
  CHECK(parsed.SerializeAsString() == as_string(frame));

  SECTION("clock_gettime: the calibration is written with its frequency left out") {
    FooterFields g;
    g.timestamp_source = "clock_gettime";
    ByteBuffer out;
    encode_footer(out, g);
    pb::Frame p;
    REQUIRE(p.ParseFromString(as_string(out)));
    REQUIRE(p.footer().has_timestamps());
    CHECK(p.footer().timestamps().source() == "clock_gettime");
    CHECK(p.footer().timestamps().ticks_per_second() == 0);
    CHECK(p.footer().timestamps().pairs() == 0);
    CHECK(p.SerializeAsString() == as_string(out));
  }
  SECTION("no source: no calibration message and no new fields") {
    FooterFields g;
    g.api_records = 1;
    ByteBuffer out;
    encode_footer(out, g);
    pb::Frame p;
    REQUIRE(p.ParseFromString(as_string(out)));
    CHECK_FALSE(p.footer().has_timestamps());
    CHECK(p.footer().holds() == 0);
    CHECK(p.footer().max_queue_bytes() == 0);
    CHECK(p.SerializeAsString() == as_string(out));
  }
}

TEST_CASE("NVTX events with seq and op_id written by the encoder read back event for event") {
  std::string path = "/tmp/gprof-encoder-ranges-" + std::to_string(getpid()) + ".gprof";
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
  encode_header(frame, HeaderFields{});
  write_frame(frame);
  // Batch 1: torch ops (seq only on forward ops, op_id on all); batch 2: none.
  const std::vector<RangeEvent> first = {
      range_event(RangeOp::kPush, 1000, 0, 40),  range_event(RangeOp::kPush, 1100, 13, 41),
      range_event(RangeOp::kPop, 1200, 0, 0),    range_event(RangeOp::kPop, 1300, 0, 0),
      range_event(RangeOp::kMark, 1400, 300, 0),
  };
  const std::vector<RangeEvent> second = {range_event(RangeOp::kPush, 2000, 0, 0),
                                          range_event(RangeOp::kPop, 2100, 0, 0)};
  RangesEncoder encoder;
  frame.clear();
  encoder.begin(11);
  for (const RangeEvent& e : first) encoder.add(e);
  encoder.finish(frame);
  encoder.begin(12);
  for (const RangeEvent& e : second) encoder.add(e);
  encoder.finish(frame);
  write_frame(frame);
  frame.clear();
  FooterFields f;
  f.holds = 2;
  f.timestamp_source = "tsc";
  f.ticks_per_second = 1e9;
  encode_footer(frame, f);
  write_frame(frame);
  std::fclose(file);

  struct Collect : RecordVisitor {
    std::vector<RangeEvent> seen;
    std::vector<pb::Footer> footers;
    void on_range(const RangeEvent& e) override { seen.push_back(e); }
    void on_footer(const pb::Footer& footer) override { footers.push_back(footer); }
  } visitor;
  ReadStatus status = read_file(path, visitor);
  std::remove(path.c_str());
  REQUIRE(status.opened);
  CHECK(status.complete);
  CHECK(status.bad_frames == 0);
  REQUIRE(visitor.seen.size() == first.size() + second.size());
  for (size_t i = 0; i < visitor.seen.size(); ++i) {
    const RangeEvent& want = i < first.size() ? first[i] : second[i - first.size()];
    const RangeEvent& got = visitor.seen[i];
    INFO("event " << i);
    CHECK(got.tid == (i < first.size() ? 11u : 12u));
    CHECK(got.op == want.op);
    CHECK(got.time_ns == want.time_ns);
    CHECK(got.seq == want.seq);
    CHECK(got.op_id == want.op_id);
  }
  CHECK(visitor.seen[1].seq == 13);
  CHECK(visitor.seen[1].op_id == 41);
  CHECK(visitor.seen[4].seq == 300);
  REQUIRE(visitor.footers.size() == 1);
  CHECK(visitor.footers[0].holds() == 2);
  CHECK(visitor.footers[0].timestamps().source() == "tsc");
  CHECK(visitor.footers[0].timestamps().ticks_per_second() == 1e9);
}

TEST_CASE("devices parse with libprotobuf to the encoded values") {
  DeviceFields devices[2];
  devices[0].ordinal = 0;
  devices[0].name = "NVIDIA H100 80GB HBM3";
  devices[0].compute_major = 9;
  devices[0].compute_minor = 0;
  devices[0].sm_count = 132;
  devices[0].total_memory = 85'031'714'816ull;
  devices[0].pci_bus_id = "0000:19:00.0";
  devices[0].driver_version = 13000;
  devices[1].ordinal = 7;  // the others unknown: zero and empty
  ByteBuffer frame;
  encode_devices(frame, devices, 2);
  pb::Frame parsed;
  REQUIRE(parsed.ParseFromArray(frame.data(), static_cast<int>(frame.size())));
  REQUIRE(parsed.devices_size() == 2);
  const pb::Device& d = parsed.devices(0);
  CHECK(d.ordinal() == 0);
  CHECK(d.name() == "NVIDIA H100 80GB HBM3");
  CHECK(d.compute_major() == 9);
  CHECK(d.compute_minor() == 0);
  CHECK(d.sm_count() == 132);
  CHECK(d.total_memory() == 85'031'714'816ull);
  CHECK(d.pci_bus_id() == "0000:19:00.0");
  CHECK(d.driver_version() == 13000);
  CHECK(parsed.devices(1).ordinal() == 7);
  CHECK(parsed.devices(1).driver_version() == 0);
  CHECK(parsed.devices(1).name().empty());
  CHECK(parsed.devices(1).total_memory() == 0);
}

TEST_CASE("crc32c matches the Castagnoli check value") {
  CHECK(crc32c("123456789", 9) == 0xE3069283u);
  CHECK(crc32c_portable("123456789", 9) == 0xE3069283u);
}

TEST_CASE("crc32c (SSE4.2 where the CPU has it) and the table agree at every length and offset") {
  std::mt19937 rng(5);
  std::vector<unsigned char> bytes(600);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  for (size_t offset = 0; offset < 9; ++offset)
    for (size_t size = 0; offset + size <= 300; ++size) {
      INFO("offset " << offset << " size " << size);
      REQUIRE(crc32c(bytes.data() + offset, size) == crc32c_portable(bytes.data() + offset, size));
    }
  // Continued over two pieces, as over one.
  const uint32_t first = crc32c(bytes.data(), 123);
  CHECK(crc32c(bytes.data() + 123, 477, first) == crc32c(bytes.data(), 600));
  CHECK(crc32c_portable(bytes.data() + 123, 477, first) == crc32c(bytes.data(), 600));
}

// Long inputs go three blocks at once (3 × 8192 and 3 × 256 bytes, then
// words): every mix of those parts, at any alignment, as the table gives.
TEST_CASE("crc32c agrees with the table across its three-way blocks") {
  std::mt19937 rng(9);
  std::vector<unsigned char> bytes(60000);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  std::vector<size_t> sizes = {
      767, 768, 769, 775, 776, 1536, 24575, 24576, 24577, 24576 + 768, 2 * 24576 + 767 + 9, 59990};
  for (int i = 0; i < 40; ++i) sizes.push_back(rng() % 59990);
  for (const size_t size : sizes) {
    const size_t offset = rng() % 9;
    INFO("offset " << offset << " size " << size);
    REQUIRE(crc32c(bytes.data() + offset, size) == crc32c_portable(bytes.data() + offset, size));
    REQUIRE(crc32c(bytes.data() + offset, size, 0x12345678u) ==
            crc32c_portable(bytes.data() + offset, size, 0x12345678u));
  }
}

TEST_CASE("CUPTI status with takeover gaps parses with libprotobuf") {
  CuptiGapFields gaps[2];
  gaps[0].start_ns = 5'000'000'000;
  gaps[0].end_ns = 5'400'000'000;
  gaps[0].reason = "cuptiActivityRegisterCallbacks by kineto; resumed";
  gaps[0].gpu_records_before = 4;
  gaps[0].gpu_records_at_end = 4;
  gaps[0].clock_replaced = true;
  gaps[1].start_ns = 6'000'000'000;  // still open: end 0
  gaps[1].reason = "cuptiFinalize by another tool";
  gaps[1].gpu_records_before = 9;
  CuptiStatusFields s;
  s.state = CuptiState::kTakenOver;
  s.gaps = gaps;
  s.gap_count = 2;
  s.gaps_not_kept = 3;
  ByteBuffer frame;
  encode_cupti_status(frame, s);

  pb::Frame parsed;
  REQUIRE(parsed.ParseFromString(as_string(frame)));
  REQUIRE(parsed.has_cupti());
  const pb::CuptiStatus& c = parsed.cupti();
  CHECK(c.state() == pb::CuptiStatus::TAKEN_OVER);
  REQUIRE(c.gaps_size() == 2);
  CHECK(c.gaps(0).start_ns() == 5'000'000'000);
  CHECK(c.gaps(0).end_ns() == 5'400'000'000);
  CHECK(c.gaps(0).reason() == "cuptiActivityRegisterCallbacks by kineto; resumed");
  CHECK(c.gaps(0).gpu_records_before() == 4);
  CHECK(c.gaps(0).gpu_records_at_end() == 4);
  CHECK(c.gaps(0).clock_replaced());
  CHECK(c.gaps(1).end_ns() == 0);
  CHECK(c.gaps(1).gpu_records_before() == 9);
  CHECK_FALSE(c.gaps(1).clock_replaced());
  CHECK(c.gaps_not_kept() == 3);
}
