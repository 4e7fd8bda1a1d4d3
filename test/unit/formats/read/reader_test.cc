#include "formats/read/reader.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "formats/api_ids.h"
#include "formats/framing.h"
#include "test/unit/formats/sidecar_builder.h"

namespace gprof {
namespace {

using test::make_call;
using test::SidecarBuilder;
using test::write_temp_file;

// Keeps everything the reader hands out.
struct Collect : RecordVisitor {
  void on_header(const pb::FileHeader& h) override { headers.push_back(h); }
  void on_string(const pb::StringEntry& e) override { strings.push_back(e); }
  void on_api(const ApiRecord& r) override { records.push_back(r); }
  void on_footer(const pb::Footer& f) override { footers.push_back(f); }
  void on_gpu(const GpuRecord& r) override { gpu.push_back(r); }
  void on_range(const RangeEvent& e) override { ranges.push_back(e); }
  std::vector<RangeEvent> ranges;
  void on_external_correlation(uint64_t c, uint64_t e) override { external.emplace_back(c, e); }
  void on_cupti(const pb::CuptiStatus& s) override { cupti.push_back(s); }
  std::vector<GpuRecord> gpu;
  std::vector<std::pair<uint64_t, uint64_t>> external;
  std::vector<pb::CuptiStatus> cupti;
  std::vector<pb::FileHeader> headers;
  std::vector<pb::StringEntry> strings;
  std::vector<ApiRecord> records;
  std::vector<pb::Footer> footers;
};

ReadStatus read_bytes(const std::string& name, const std::string& bytes, Collect& out) {
  return read_file(write_temp_file(name, bytes), out);
}

// One call of every field combination, with distinct values in every column.
std::vector<ApiRecord> every_column() {
  std::vector<ApiRecord> calls;
  ApiRecord launch = make_call(ApiId::cudaLaunchKernelInternal, 1'000'000, 700);
  launch.kernel = 7;
  launch.grid = {128, 2, 3};
  launch.block = {256, 4, 1};
  launch.shared_mem = 4096;
  launch.stream = 0xABCDEF;
  launch.correlation = 11;
  calls.push_back(launch);
  ApiRecord copy = make_call(ApiId::cudaMemcpyAsync, 1'002'000, 300);
  copy.bytes = 1 << 20;
  copy.copy_kind = 1;
  copy.stream = 0xABCDEF;
  copy.correlation = 12;
  calls.push_back(copy);
  ApiRecord set = make_call(ApiId::cudaMemset, 1'001'500, 50);  // starts earlier: delta < 0
  set.bytes = 64;
  set.address = 0x7f0000001000;
  calls.push_back(set);
  ApiRecord sync = make_call(ApiId::cudaDeviceSynchronize, 1'010'000, 90'000);
  calls.push_back(sync);
  ApiRecord alloc = make_call(ApiId::cudaMalloc, 1'200'000, 10'000);
  alloc.bytes = 1 << 30;
  alloc.address = 0x7f0000100000;
  alloc.result = 2;
  calls.push_back(alloc);
  ApiRecord free_call = make_call(ApiId::cudaFree, 1'300'000, 5'000);
  free_call.address = 0x7f0000100000;
  calls.push_back(free_call);
  ApiRecord graph = make_call(ApiId::cudaGraphLaunch, 1'400'000, 2'000);
  graph.stream = 5;
  graph.address = 0x1234;
  graph.correlation = 99;
  calls.push_back(graph);
  ApiRecord event_sync = make_call(ApiId::cudaEventSynchronize, 1'500'000, 1'000);
  event_sync.address = 0x5678;
  calls.push_back(event_sync);
  ApiRecord copy2 = make_call(ApiId::cudaMemcpy, 1'600'000, 8'000);
  copy2.bytes = 12;
  copy2.copy_kind = 2;
  calls.push_back(copy2);
  return calls;
}

void require_same(const ApiRecord& got, const ApiRecord& want, uint32_t tid) {
  CHECK(got.kind == RecordKind::kApi);
  CHECK(got.api == want.api);
  CHECK(got.tid == tid);
  CHECK(got.start_ns == want.start_ns);
  CHECK(got.end_ns == want.end_ns);
  CHECK(got.result == want.result);
  CHECK(got.correlation == want.correlation);
  CHECK(got.kernel == want.kernel);
  CHECK(got.grid.x == want.grid.x);
  CHECK(got.grid.y == want.grid.y);
  CHECK(got.grid.z == want.grid.z);
  CHECK(got.block.x == want.block.x);
  CHECK(got.block.y == want.block.y);
  CHECK(got.block.z == want.block.z);
  CHECK(got.shared_mem == want.shared_mem);
  CHECK(got.stream == want.stream);
  CHECK(got.bytes == want.bytes);
  CHECK(got.address == want.address);
  CHECK(got.copy_kind == want.copy_kind);
}

pb::Footer test_footer() {
  pb::Footer footer;
  footer.set_api_records(9);
  footer.set_end_wall_ns(1714566900000000000u);
  pb::Loss* loss = footer.add_losses();
  loss->set_reason("ring_full");
  loss->set_count(12);
  return footer;
}

TEST_CASE("reader: every column round-trips", "[reader]") {
  const std::vector<ApiRecord> calls = every_column();
  SidecarBuilder file;
  file.header(test::test_header())
      .strings({{7, "_Z6squarePfi"}})
      .calls(1234, calls)
      .calls(1235, {make_call(ApiId::cudaStreamSynchronize, 5, 6)})
      .footer(test_footer());
  Collect got;
  const ReadStatus status = read_bytes("every_column.gprof", file.bytes(), got);

  REQUIRE(status.opened);
  CHECK(status.complete);
  CHECK(status.error.empty());
  CHECK(status.format_version == kFormatVersion);
  CHECK(status.frames == 5);
  CHECK(status.bad_frames == 0);
  CHECK(status.ignored_bytes == 0);
  CHECK(status.skipped_records == 0);
  CHECK(status.records == calls.size() + 1);
  CHECK(status.file_bytes == file.bytes().size());
  CHECK(describe_integrity(status) == "complete");

  REQUIRE(got.headers.size() == 1);
  CHECK(got.headers[0].pid() == 42);
  CHECK(got.headers[0].host() == "testhost");
  REQUIRE(got.strings.size() == 1);
  CHECK(got.strings[0].id() == 7);
  CHECK(got.strings[0].kind() == pb::StringEntry::KERNEL);
  CHECK(got.strings[0].value() == "_Z6squarePfi");
  REQUIRE(got.footers.size() == 1);
  CHECK(got.footers[0].losses(0).count() == 12);

  REQUIRE(got.records.size() == calls.size() + 1);
  for (size_t i = 0; i < calls.size(); ++i) {
    INFO("call " << i);
    require_same(got.records[i], calls[i], 1234);
  }
  CHECK(got.records.back().tid == 1235);
  CHECK(got.records.back().stream == 0);
  CHECK(got.records.back().start_ns == 5);
  CHECK(got.records.back().end_ns == 11);
}

TEST_CASE("reader: GPU activities, external correlations and CUPTI status round-trip",
          "[reader][gpu]") {
  std::vector<GpuRecord> gpu;
  GpuRecord kernel = test::make_kernel(3, 2'000'000, 20'000, 41);
  kernel.device = 1;
  kernel.graph = 2;
  kernel.graph_node = 1ull << 40;
  kernel.shared_mem = 49152;
  gpu.push_back(kernel);
  GpuRecord copy = test::make_copy(1, 1, 3, 1 << 20, 1'990'000, 5000, 42);  // earlier start
  copy.peer_device = 0;
  gpu.push_back(copy);
  GpuRecord set{};
  set.kind = GpuKind::kMemset;
  set.start_ns = 2'100'000;
  set.end_ns = 2'100'300;
  set.bytes = 64;
  set.dst_kind = 3;
  set.detail = 0xff;
  set.correlation = 43;
  gpu.push_back(set);
  GpuRecord sync{};
  sync.kind = GpuKind::kSync;
  sync.start_ns = 2'200'000;
  sync.end_ns = 2'300'000;
  sync.detail = 3;
  sync.correlation = 44;
  gpu.push_back(sync);
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  status.set_version(130001);
  status.set_clock_offset_ns(-17);

  Collect out;
  const ReadStatus st = read_bytes("gpu.gprof",
                                   SidecarBuilder()
                                       .header(test::test_header())
                                       .cupti(status)
                                       .gpu(gpu)
                                       .external({{41, 9}, {42, 10}})
                                       .bytes(),
                                   out);
  REQUIRE(st.opened);
  CHECK(st.bad_frames == 0);
  CHECK(st.gpu_records == 4);
  REQUIRE(out.gpu.size() == 4);
  for (size_t i = 0; i < gpu.size(); ++i) {
    INFO("gpu record " << i);
    const GpuRecord& a = gpu[i];
    const GpuRecord& b = out.gpu[i];
    CHECK(b.kind == a.kind);
    CHECK(b.start_ns == a.start_ns);
    CHECK(b.end_ns == a.end_ns);
    CHECK(b.correlation == a.correlation);
    CHECK(b.device == a.device);
    CHECK(b.stream == a.stream);
    CHECK(b.graph == a.graph);
    CHECK(b.graph_node == a.graph_node);
    CHECK(b.kernel == a.kernel);
    CHECK(b.grid.x == a.grid.x);
    CHECK(b.block.x == a.block.x);
    CHECK(b.shared_mem == a.shared_mem);
    CHECK(b.registers == a.registers);
    CHECK(b.bytes == a.bytes);
    CHECK(b.copy_kind == a.copy_kind);
    CHECK(b.src_kind == a.src_kind);
    CHECK(b.dst_kind == a.dst_kind);
    CHECK(b.detail == a.detail);
  }
  REQUIRE(out.external.size() == 2);
  CHECK(out.external[1] == std::pair<uint64_t, uint64_t>{42, 10});
  REQUIRE(out.cupti.size() == 1);
  CHECK(out.cupti[0].state() == pb::CuptiStatus::EXTERNAL_CORRELATION);
  CHECK(out.cupti[0].clock_offset_ns() == -17);
}

TEST_CASE("reader: NVTX events round-trip in order", "[reader][nvtx]") {
  std::vector<RangeEvent> events = {
      test::make_range_event(RangeOp::kPush, 5000, 1 << 28),
      test::make_range_event(RangeOp::kStart, 5100, (1 << 28) + 1, 77),
      test::make_range_event(RangeOp::kPop, 4900),  // out of order: delta < 0
      test::make_range_event(RangeOp::kEnd, 9000, 0, 77),
      test::make_range_event(RangeOp::kMark, 9500, (1 << 28) + 2),
  };
  events[0].domain = 3;
  events[0].category = 4;
  events[0].color = 0xFF00FF00;
  events[0].payload = 1ull << 40;
  Collect out;
  const ReadStatus st = read_bytes("ranges.gprof",
                                   SidecarBuilder()
                                       .header(test::test_header())
                                       .named(pb::StringEntry::NVTX, {{1 << 28, "forward"}})
                                       .ranges(99, events)
                                       .bytes(),
                                   out);
  REQUIRE(st.opened);
  CHECK(st.bad_frames == 0);
  CHECK(st.range_events == 5);
  REQUIRE(out.ranges.size() == 5);
  for (size_t i = 0; i < events.size(); ++i) {
    INFO("event " << i);
    CHECK(out.ranges[i].op == events[i].op);
    CHECK(out.ranges[i].time_ns == events[i].time_ns);
    CHECK(out.ranges[i].name == events[i].name);
    CHECK(out.ranges[i].range_id == events[i].range_id);
    CHECK(out.ranges[i].tid == 99);
    CHECK(out.ranges[i].kind == RecordKind::kRange);
  }
  CHECK(out.ranges[0].domain == 3);
  CHECK(out.ranges[0].category == 4);
  CHECK(out.ranges[0].color == 0xFF00FF00);
  CHECK(out.ranges[0].payload == (1ull << 40));
  for (const RangeEvent& e : out.ranges) {
    CHECK(e.seq == 0);
    CHECK(e.op_id == 0);
  }
  REQUIRE(out.strings.size() == 1);
  CHECK(out.strings[0].kind() == pb::StringEntry::NVTX);
}

TEST_CASE("reader: NVTX seq and op_id columns", "[reader][nvtx]") {
  // A hand-built batch of `n` events with `seq` and `op_id` entries.
  const auto batch = [](int n, std::vector<uint64_t> seq, std::vector<uint64_t> op_id) {
    pb::Frame f;
    pb::Ranges* r = f.add_ranges();
    r->set_tid(5);
    r->set_base_ns(1000);
    for (int i = 0; i < n; ++i) {
      r->add_op(static_cast<uint32_t>(i % 2 == 0 ? RangeOp::kPush : RangeOp::kPop));
      r->add_time_delta(10);
      r->add_name(i % 2 == 0 ? 1 : 0);
      r->add_domain(0);
      r->add_category(0);
      r->add_range_id(0);
      r->add_color(0);
      r->add_payload(0);
    }
    for (uint64_t v : seq) r->add_seq(v);
    for (uint64_t v : op_id) r->add_op_id(v);
    return f;
  };
  const auto read = [](const std::string& name, const pb::Frame& f, Collect& out) {
    return read_bytes(name, SidecarBuilder().header(test::test_header()).frame(f).bytes(), out);
  };

  SECTION("one entry per event: delivered with each event") {
    Collect out;
    const ReadStatus st = read("seq-full.gprof", batch(2, {13, 0}, {40, 41}), out);
    CHECK(st.bad_frames == 0);
    REQUIRE(out.ranges.size() == 2);
    CHECK(out.ranges[0].seq == 13);
    CHECK(out.ranges[0].op_id == 40);
    CHECK(out.ranges[1].seq == 0);
    CHECK(out.ranges[1].op_id == 41);
  }
  SECTION("empty columns (an older writer, or no torch op): zero") {
    Collect out;
    const ReadStatus st = read("seq-empty.gprof", batch(2, {}, {7, 8}), out);
    CHECK(st.bad_frames == 0);
    REQUIRE(out.ranges.size() == 2);
    CHECK(out.ranges[0].seq == 0);
    CHECK(out.ranges[1].seq == 0);
    CHECK(out.ranges[0].op_id == 7);
    CHECK(out.ranges[1].op_id == 8);
  }
  SECTION("a seq column of another size than the batch is a bad frame") {
    Collect out;
    const ReadStatus st = read("seq-short.gprof", batch(3, {1, 2}, {}), out);
    CHECK(st.bad_frames == 1);
    CHECK(st.range_events == 0);
    CHECK(out.ranges.empty());
  }
  SECTION("an op_id column of another size than the batch is a bad frame") {
    Collect out;
    const ReadStatus st = read("opid-long.gprof", batch(2, {}, {1, 2, 3}), out);
    CHECK(st.bad_frames == 1);
    CHECK(out.ranges.empty());
  }
}

TEST_CASE("reader: footer holds, queue memory and timestamp calibration", "[reader]") {
  pb::Footer footer;
  footer.set_holds(3);
  footer.set_held_ns(12'500'000);
  footer.set_max_held_ns(4'100'000);
  footer.set_peak_queue_bytes(12ull << 20);
  footer.set_max_queue_bytes(256ull << 20);
  footer.mutable_timestamps()->set_source("tsc");
  footer.mutable_timestamps()->set_pairs(57);
  Collect out;
  const ReadStatus st =
      read_bytes("footer-holds.gprof",
                 SidecarBuilder().header(test::test_header()).footer(footer).bytes(), out);
  CHECK(st.complete);
  REQUIRE(out.footers.size() == 1);
  CHECK(out.footers[0].holds() == 3);
  CHECK(out.footers[0].held_ns() == 12'500'000);
  CHECK(out.footers[0].max_held_ns() == 4'100'000);
  CHECK(out.footers[0].peak_queue_bytes() == (12ull << 20));
  CHECK(out.footers[0].max_queue_bytes() == (256ull << 20));
  CHECK(out.footers[0].timestamps().source() == "tsc");
  CHECK(out.footers[0].timestamps().pairs() == 57);
}

TEST_CASE("reader: a GPU batch of an unknown kind is a bad frame", "[reader][gpu]") {
  pb::Frame f;
  pb::GpuActivities* batch = f.add_gpu_activities();
  batch->add_kind(99);
  batch->add_start_delta(1);
  batch->add_duration(1);
  batch->add_correlation(1);
  batch->add_device(0);
  batch->add_stream(0);
  batch->add_graph(0);
  batch->add_graph_node(0);
  Collect out;
  const ReadStatus st = read_bytes(
      "gpu-bad.gprof", SidecarBuilder().header(test::test_header()).frame(f).bytes(), out);
  CHECK(st.bad_frames == 1);
  CHECK(out.gpu.empty());
}

TEST_CASE("reader: strings are delivered before the calls of the same frame", "[reader]") {
  struct Order : RecordVisitor {
    void on_string(const pb::StringEntry&) override { events += 's'; }
    void on_api(const ApiRecord&) override { events += 'a'; }
    std::string events;
  } order;
  pb::Frame frame;
  *frame.add_api_calls() = test::encode_batch(1, {make_call(ApiId::cudaFree, 10, 1)});
  pb::StringEntry* s = frame.add_strings();
  s->set_id(1);
  s->set_value("k");
  SidecarBuilder file;
  file.header(test::test_header()).frame(frame);
  const ReadStatus status = read_file(write_temp_file("order.gprof", file.bytes()), order);
  CHECK(status.opened);
  CHECK(order.events == "sa");
}

TEST_CASE("reader: read_header stops after the header", "[reader]") {
  pb::FileHeader header = test::test_header();
  header.set_rank("3");
  SidecarBuilder file;
  file.header(header).calls(7, {make_call(ApiId::cudaFree, 10, 1)});
  // Garbage after the header: a reader that went on would have to skip it.
  file.raw(std::string(64, '\xff'));
  const std::string path = write_temp_file("header_only.gprof", file.bytes());
  const std::optional<pb::FileHeader> read = read_header(path);
  REQUIRE(read.has_value());
  CHECK(read->rank() == "3");
  CHECK(read->pid() == 42);
  struct Stop : RecordVisitor {
    void on_api(const ApiRecord&) override { ++calls; }
    bool wants_more() override { return false; }
    int calls = 0;
  } stop;
  read_file(path, stop);
  CHECK(stop.calls == 0);
  CHECK_FALSE(read_header(write_temp_file("not_sidecar.gprof", "hello")).has_value());
}

TEST_CASE("reader: text that is not UTF-8 reads back with U+FFFD, its frame kept", "[reader]") {
  struct Text : RecordVisitor {
    void on_header(const pb::FileHeader& h) override { header = h; }
    void on_string(const pb::StringEntry& e) override { strings.push_back(e.value()); }
    void on_api(const ApiRecord&) override { ++calls; }
    pb::FileHeader header;
    std::vector<std::string> strings;
    int calls = 0;
  } text;
  pb::FileHeader header = test::test_header();
  header.add_argv("caf\xE9.py");
  header.set_exe("/opt/\xFF/app");
  pb::ConfigEntry* config = header.add_config();
  config->set_key("output");
  config->set_value("run-\xFE.gprof");
  pb::Frame frame;
  pb::StringEntry* s = frame.add_strings();
  s->set_id(1);
  s->set_kind(pb::StringEntry::NVTX);
  s->set_value("bad\xFF\xFEutf8");
  *frame.add_api_calls() = test::encode_batch(1, {make_call(ApiId::cudaFree, 10, 1)});
  SidecarBuilder file;
  file.header(header).frame(frame).footer(test_footer());
  const ReadStatus status = read_file(write_temp_file("utf8.gprof", file.bytes()), text);
  CHECK(status.bad_frames == 0);
  CHECK(status.complete);
  CHECK(text.calls == 1);
  REQUIRE(text.strings.size() == 1);
  CHECK(text.strings[0] == "bad\xEF\xBF\xBD\xEF\xBF\xBDutf8");
  CHECK(text.header.argv(text.header.argv_size() - 1) == "caf\xEF\xBF\xBD.py");
  CHECK(text.header.exe() == "/opt/\xEF\xBF\xBD/app");
  CHECK(text.header.config(text.header.config_size() - 1).value() == "run-\xEF\xBF\xBD.gprof");
}

TEST_CASE("reader: a file without a footer is read up to its last whole frame", "[reader]") {
  SidecarBuilder file;
  file.header(test::test_header())
      .calls(1, {make_call(ApiId::cudaMalloc, 100, 10), make_call(ApiId::cudaFree, 200, 10)})
      .calls(1, {make_call(ApiId::cudaDeviceSynchronize, 300, 10)});
  const size_t last = file.offsets().back();
  const std::string& whole = file.bytes();

  SECTION("cut inside the last payload") {
    const std::string cut = whole.substr(0, whole.size() - 3);
    Collect got;
    const ReadStatus status = read_bytes("cut_payload.gprof", cut, got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.frames == 2);
    CHECK(status.bad_frames == 0);
    CHECK(status.ignored_bytes == cut.size() - last);
    CHECK(got.records.size() == 2);
    CHECK(status.error.empty());
    CHECK(describe_integrity(status) == "incomplete (no footer, " +
                                            std::to_string(cut.size() - last) +
                                            " bytes after the last whole frame ignored)");
  }
  SECTION("cut inside the last frame header") {
    const std::string cut = whole.substr(0, last + 5);
    Collect got;
    const ReadStatus status = read_bytes("cut_header.gprof", cut, got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.frames == 2);
    CHECK(status.ignored_bytes == 5);
    CHECK(got.records.size() == 2);
  }
  SECTION("cut at a frame boundary") {
    Collect got;
    const ReadStatus status = read_bytes("cut_boundary.gprof", whole, got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.frames == 3);
    CHECK(status.ignored_bytes == 0);
    CHECK(got.records.size() == 3);
    CHECK(describe_integrity(status) == "incomplete (no footer)");
  }
  SECTION("only the preamble") {
    Collect got;
    const ReadStatus status = read_bytes("preamble_only.gprof", test::preamble(1), got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.frames == 0);
    CHECK(status.ignored_bytes == 0);
  }
}

TEST_CASE("reader: a corrupted frame is skipped and later frames are still read", "[reader]") {
  SidecarBuilder file;
  file.header(test::test_header())
      .calls(1, {make_call(ApiId::cudaMalloc, 100, 10)})
      .calls(1, {make_call(ApiId::cudaFree, 200, 10)})
      .footer(test_footer());
  std::string bytes = file.bytes();

  SECTION("a flipped payload byte fails the checksum") {
    bytes[file.offsets()[1] + kFrameHeaderSize + 2] ^= 0x40;
    Collect got;
    const ReadStatus status = read_bytes("flipped.gprof", bytes, got);
    REQUIRE(status.opened);
    CHECK(status.complete);
    CHECK(status.bad_frames == 1);
    CHECK(status.frames == 3);
    REQUIRE(got.records.size() == 1);
    CHECK(got.records[0].api == ApiId::cudaFree);
    CHECK(describe_integrity(status) == "complete, 1 bad frame skipped");
  }
  SECTION("a flipped checksum byte") {
    bytes[file.offsets()[2] + 4] ^= 0x01;
    Collect got;
    const ReadStatus status = read_bytes("flipped_crc.gprof", bytes, got);
    CHECK(status.complete);
    CHECK(status.bad_frames == 1);
    REQUIRE(got.records.size() == 1);
    CHECK(got.records[0].api == ApiId::cudaMalloc);
  }
  SECTION("a length beyond the limit stops the reader") {
    store_le32(reinterpret_cast<unsigned char*>(bytes.data() + file.offsets()[2]),
               kMaxFramePayload + 1);
    Collect got;
    const ReadStatus status = read_bytes("huge_length.gprof", bytes, got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.frames == 2);
    CHECK(status.ignored_bytes == bytes.size() - file.offsets()[2]);
    CHECK_FALSE(status.error.empty());
    CHECK(got.records.size() == 1);
  }
  SECTION("a length beyond the end of the file") {
    store_le32(reinterpret_cast<unsigned char*>(bytes.data() + file.offsets()[2]), 1 << 20);
    Collect got;
    const ReadStatus status = read_bytes("long_length.gprof", bytes, got);
    REQUIRE(status.opened);
    CHECK_FALSE(status.complete);
    CHECK(status.ignored_bytes == bytes.size() - file.offsets()[2]);
    CHECK(got.records.size() == 1);
  }
}

TEST_CASE("reader: a payload that is not a Frame is a bad frame", "[reader]") {
  SidecarBuilder file;
  file.header(test::test_header())
      .raw(test::framed_payload("\xff\xff\xff\xff garbage"))
      .calls(1, {make_call(ApiId::cudaFree, 200, 10)});
  Collect got;
  const ReadStatus status = read_bytes("unparsable.gprof", file.bytes(), got);
  REQUIRE(status.opened);
  CHECK(status.bad_frames == 1);
  CHECK(status.frames == 2);
  CHECK(got.records.size() == 1);
}

TEST_CASE("reader: column length mismatches are bad frames, delivered never in part", "[reader]") {
  pb::Frame frame;
  pb::StringEntry* s = frame.add_strings();
  s->set_id(3);
  s->set_value("k");
  *frame.add_api_calls() = test::encode_batch(1, {make_call(ApiId::cudaFree, 10, 1)});
  pb::ApiCalls* bad = frame.add_api_calls();

  SECTION("a common column is short") {
    *bad = test::encode_batch(2, {make_call(ApiId::cudaMalloc, 10, 1)});
    bad->clear_duration();
  }
  SECTION("an optional column is short") {
    ApiRecord launch = make_call(ApiId::cudaLaunchKernel, 10, 1);
    *bad = test::encode_batch(2, {launch, launch});
    bad->mutable_grid_y()->RemoveLast();
  }
  SECTION("an optional column is long") {
    *bad = test::encode_batch(2, {make_call(ApiId::cudaMalloc, 10, 1)});
    bad->add_stream(1);
  }
  SECTION("a start_delta column is long") {
    *bad = test::encode_batch(2, {make_call(ApiId::cudaDeviceSynchronize, 10, 1)});
    bad->add_start_delta(1);
  }
  SidecarBuilder file;
  file.header(test::test_header()).frame(frame).calls(1, {make_call(ApiId::cudaFree, 20, 1)});
  Collect got;
  const ReadStatus status = read_bytes("mismatch.gprof", file.bytes(), got);
  REQUIRE(status.opened);
  CHECK(status.bad_frames == 1);
  CHECK(status.frames == 2);
  CHECK(got.strings.empty());
  REQUIRE(got.records.size() == 1);
  CHECK(got.records[0].start_ns == 20);
}

TEST_CASE("reader: a batch with an unknown API is skipped without desyncing", "[reader]") {
  pb::Frame frame;
  *frame.add_api_calls() = test::encode_batch(1, {make_call(ApiId::cudaMalloc, 10, 1)});
  pb::ApiCalls* future = frame.add_api_calls();
  *future = test::encode_batch(
      2, {make_call(ApiId::cudaLaunchKernel, 10, 1), make_call(ApiId::cudaFree, 20, 1)});
  future->set_api(1, 60000);  // an API of a newer writer, with unknown columns
  *frame.add_api_calls() = test::encode_batch(3, {make_call(ApiId::cudaFree, 30, 1)});
  SidecarBuilder file;
  file.header(test::test_header()).frame(frame).footer(test_footer());
  Collect got;
  const ReadStatus status = read_bytes("unknown_api.gprof", file.bytes(), got);
  REQUIRE(status.opened);
  CHECK(status.complete);
  CHECK(status.bad_frames == 0);
  CHECK(status.skipped_records == 2);
  CHECK(status.first_unknown_api == 60000);
  CHECK(status.records == 2);
  REQUIRE(got.records.size() == 2);
  CHECK(got.records[0].tid == 1);
  CHECK(got.records[1].tid == 3);
  CHECK(describe_integrity(status) ==
        "complete, 2 records of unknown APIs skipped (API id 60000; written by a newer gprof?)");
}

TEST_CASE("reader: a newer format version is refused, naming both versions", "[reader]") {
  SidecarBuilder file(7);
  file.header(test::test_header());
  Collect got;
  const ReadStatus status = read_bytes("newer.gprof", file.bytes(), got);
  CHECK_FALSE(status.opened);
  CHECK(status.format_version == 7);
  CHECK(status.error == "format version 7 is newer than this gpuprof supports (" +
                            std::to_string(kFormatVersion) + "); upgrade gpuprof");
  CHECK(got.headers.empty());
}

TEST_CASE("reader: files that are not sidecar files", "[reader]") {
  Collect got;
  SECTION("missing") {
    const ReadStatus status = read_file("/nonexistent/dir/run.gprof", got);
    CHECK_FALSE(status.opened);
    CHECK(status.error == "No such file or directory");
  }
  SECTION("empty") {
    const ReadStatus status = read_bytes("empty.gprof", "", got);
    CHECK_FALSE(status.opened);
    CHECK(status.error == "empty file, not a gprof sidecar file");
  }
  SECTION("text") {
    const ReadStatus status = read_bytes("text.gprof", "hello world, this is text\n", got);
    CHECK_FALSE(status.opened);
    CHECK(status.error == "not a gprof sidecar file (bad magic)");
  }
  SECTION("shorter than the magic") {
    const ReadStatus status = read_bytes("short.gprof", "GPR", got);
    CHECK_FALSE(status.opened);
    CHECK(status.error == "not a gprof sidecar file (bad magic)");
  }
  SECTION("magic without a version") {
    const ReadStatus status = read_bytes("noversion.gprof", test::preamble(1).substr(0, 10), got);
    CHECK_FALSE(status.opened);
    CHECK(status.error.find("truncated") != std::string::npos);
  }
  SECTION("version 0") {
    const ReadStatus status = read_bytes("v0.gprof", test::preamble(0), got);
    CHECK_FALSE(status.opened);
  }
  SECTION("a directory") {
    const ReadStatus status = read_file("/tmp", got);
    CHECK_FALSE(status.opened);
    CHECK(status.error == "is a directory");
  }
  CHECK(got.records.empty());
  CHECK(got.headers.empty());
}

TEST_CASE("reader: random garbage never crashes", "[reader]") {
  std::mt19937 rng(12345);
  SidecarBuilder good;
  good.header(test::test_header())
      .strings({{1, "_Z1kv"}})
      .calls(1, every_column())
      .footer(test_footer());
  for (int round = 0; round < 300; ++round) {
    std::string bytes = good.bytes();
    const int mode = round % 3;
    if (mode == 0) {  // flip random bytes after the preamble
      for (int i = 0; i < 1 + round % 7; ++i) {
        const size_t at = kFilePreambleSize + rng() % (bytes.size() - kFilePreambleSize);
        bytes[at] = static_cast<char>(rng());
      }
    } else if (mode == 1) {  // random frames
      bytes = test::preamble(1);
      const size_t n = rng() % 200;
      for (size_t i = 0; i < n; ++i) bytes += static_cast<char>(rng());
    } else {  // truncate anywhere
      bytes.resize(rng() % bytes.size());
    }
    Collect got;
    const ReadStatus status = read_bytes("garbage.gprof", bytes, got);
    INFO("round " << round);
    CHECK(status.records == got.records.size());
    CHECK(status.frames + status.bad_frames <= bytes.size());
  }
}

}  // namespace
}  // namespace gprof
