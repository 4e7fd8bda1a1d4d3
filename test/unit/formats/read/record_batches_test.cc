// A frame's batches handed out whole (formats/read/record_batches.h) against the
// per-record calls: a visitor that reads the columns through the cursors
// must see exactly the records, in the order, that one taking on_api,
// on_gpu and on_range sees, on frames of mixed record kinds, with optional
// columns present and absent, empty batches and a bad frame.
#include "formats/read/record_batches.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/read/pipelined_reader.h"
#include "formats/read/reader.h"
#include "test/unit/formats/sidecar_builder.h"

namespace gprof {
namespace {

using namespace gprof::test;

std::string join(std::initializer_list<uint64_t> values) {
  std::string out;
  for (uint64_t v : values) out += std::to_string(v) + " ";
  return out;
}

std::string api_line(ApiId api, uint32_t tid, uint64_t start, uint64_t end, int32_t result,
                     uint64_t correlation, uint32_t kernel, Dim3 grid, Dim3 block,
                     uint32_t shared_mem, uint64_t stream, uint64_t bytes, uint64_t address,
                     uint32_t copy_kind, uint32_t runtime) {
  return "api " + join({static_cast<uint64_t>(api), tid, start, end,
                        static_cast<uint64_t>(static_cast<int64_t>(result)), correlation, kernel,
                        grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_mem, stream,
                        bytes, address, copy_kind, runtime});
}

std::string gpu_line(GpuKind kind, uint64_t start, uint64_t end, uint64_t correlation,
                     uint32_t device, uint32_t stream, uint32_t graph, uint64_t graph_node,
                     uint32_t kernel, Dim3 grid, Dim3 block, uint32_t shared_mem,
                     uint32_t registers, uint64_t bytes, uint32_t copy_kind, uint32_t src_kind,
                     uint32_t peer_device, uint32_t dst_kind, uint32_t detail) {
  return "gpu " + join({static_cast<uint64_t>(kind),
                        start,
                        end,
                        correlation,
                        device,
                        stream,
                        graph,
                        graph_node,
                        kernel,
                        grid.x,
                        grid.y,
                        grid.z,
                        block.x,
                        block.y,
                        block.z,
                        shared_mem,
                        registers,
                        bytes,
                        copy_kind,
                        src_kind,
                        peer_device,
                        dst_kind,
                        detail});
}

std::string range_line(RangeOp op, uint32_t tid, uint64_t time, uint32_t name, uint32_t domain,
                       uint32_t category, uint64_t range_id, uint32_t color, uint64_t payload,
                       uint64_t seq, uint64_t op_id) {
  return "range " + join({static_cast<uint64_t>(op), tid, time, name, domain, category, range_id,
                          color, payload, seq, op_id});
}

// The per-record calls, one line each.
struct RecordLines : RecordVisitor {
  std::vector<std::string> lines;
  void on_api(const ApiRecord& r) override {
    CHECK(r.kind == RecordKind::kApi);
    lines.push_back(api_line(r.api, r.tid, r.start_ns, r.end_ns, r.result, r.correlation, r.kernel,
                             r.grid, r.block, r.shared_mem, r.stream, r.bytes, r.address,
                             r.copy_kind, r.runtime));
  }
  void on_gpu(const GpuRecord& r) override {
    lines.push_back(gpu_line(r.kind, r.start_ns, r.end_ns, r.correlation, r.device, r.stream,
                             r.graph, r.graph_node, r.kernel, r.grid, r.block, r.shared_mem,
                             r.registers, r.bytes, r.copy_kind, r.src_kind, r.peer_device,
                             r.dst_kind, r.detail));
  }
  void on_range(const RangeEvent& e) override {
    CHECK(e.kind == RecordKind::kRange);
    lines.push_back(range_line(e.op, e.tid, e.time_ns, e.name, e.domain, e.category, e.range_id,
                               e.color, e.payload, e.seq, e.op_id));
  }
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override {
    lines.push_back("external " + join({correlation, external_id}));
  }
};

// The same lines from the batches: each value read through the cursor's
// accessor, an optional one only where the record's fields say it is there.
struct BatchLines : RecordLines {
  std::vector<uint32_t> sizes;  // of each batch handed out
  void on_api(const ApiRecord&) override { FAIL("a per-record call to a batch visitor"); }
  void on_gpu(const GpuRecord&) override { FAIL("a per-record call to a batch visitor"); }
  void on_range(const RangeEvent&) override { FAIL("a per-record call to a batch visitor"); }
  void on_api_batch(const ApiBatch& batch) override {
    sizes.push_back(batch.size);
    for (ApiCursor c(batch); c.next();) {
      const uint32_t f = c.fields();
      CHECK((f & kKnownApi) != 0);
      const bool launch = f & kFieldLaunch;
      lines.push_back(api_line(c.api(), c.tid(), c.start_ns(), c.end_ns(), c.result(),
                               c.correlation(), launch ? c.kernel() : 0, launch ? c.grid() : Dim3{},
                               launch ? c.block() : Dim3{}, launch ? c.shared_mem() : 0,
                               f & kFieldStream ? c.stream() : 0, f & kFieldBytes ? c.bytes() : 0,
                               f & kFieldAddress ? c.address() : 0,
                               f & kFieldCopyKind ? static_cast<uint8_t>(c.copy_kind()) : 0,
                               static_cast<uint8_t>(c.runtime())));
      CHECK(lines.back() == api_line(c.record().api, c.record().tid, c.record().start_ns,
                                     c.record().end_ns, c.record().result, c.record().correlation,
                                     c.record().kernel, c.record().grid, c.record().block,
                                     c.record().shared_mem, c.record().stream, c.record().bytes,
                                     c.record().address, c.record().copy_kind, c.record().runtime));
    }
  }
  void on_gpu_batch(const GpuBatch& batch) override {
    sizes.push_back(batch.size);
    for (GpuCursor c(batch); c.next();) {
      const uint32_t f = c.fields();
      const bool launch = f & kGpuFieldLaunch;
      const bool copy = f & kGpuFieldCopy;
      lines.push_back(gpu_line(
          c.kind(), c.start_ns(), c.end_ns(), c.correlation(), c.device(), c.stream(), c.graph(),
          c.graph_node(), launch ? c.kernel() : 0, launch ? c.grid() : Dim3{},
          launch ? c.block() : Dim3{}, launch ? c.shared_mem() : 0, launch ? c.registers() : 0,
          f & kGpuFieldBytes ? c.bytes() : 0, copy ? static_cast<uint8_t>(c.copy_kind()) : 0,
          copy ? static_cast<uint8_t>(c.src_kind()) : 0, copy ? c.peer_device() : 0,
          f & kGpuFieldTarget ? static_cast<uint8_t>(c.dst_kind()) : 0,
          f & kGpuFieldDetail ? c.detail() : 0));
    }
  }
  void on_range_batch(const RangeBatch& batch) override {
    sizes.push_back(batch.size);
    for (RangeCursor c(batch); c.next();)
      lines.push_back(range_line(c.op(), c.tid(), c.time_ns(), c.name(), c.domain(), c.category(),
                                 c.range_id(), c.color(), c.payload(), c.seq(), c.op_id()));
  }
};

ApiRecord launch(uint64_t start, uint32_t kernel, uint64_t correlation) {
  ApiRecord r = make_call(ApiId::cudaLaunchKernel, start, 7);
  r.kernel = kernel;
  r.grid = {4096, 2, 1};
  r.block = {256, 1, 1};
  r.shared_mem = 1024;
  r.stream = 0x7f0000001000;
  r.correlation = correlation;
  r.runtime = 13;
  return r;
}

ApiRecord copy(uint64_t start, uint64_t correlation) {
  ApiRecord r = make_call(ApiId::cudaMemcpyAsync, start, 30);
  r.bytes = 1u << 20;
  r.copy_kind = 1;
  r.stream = 0x7f0000002000;
  r.correlation = correlation;
  r.runtime = 12;
  return r;
}

ApiRecord allocation(uint64_t start) {
  ApiRecord r = make_call(ApiId::cudaMalloc, start, 100);
  r.bytes = 4096;
  r.address = 0x7f1000000000;
  r.result = 2;  // cudaErrorMemoryAllocation
  r.runtime = 13;
  return r;
}

RangeEvent op(RangeOp o, uint64_t time, uint32_t name, uint64_t seq, uint64_t op_id) {
  RangeEvent e = make_range_event(o, time, name);
  e.seq = seq;
  e.op_id = op_id;
  e.domain = o == RangeOp::kPush ? 5 : 0;
  e.color = 0xff00ff00;
  e.payload = 77;
  e.category = 3;
  return e;
}

// A frame of one call whose batch has the runtime column.
pb::Frame with_runtime() {
  pb::Frame f;
  pb::ApiCalls& batch = *f.add_api_calls() = encode_batch(4, {copy(1500, 20)});
  batch.add_runtime(12);
  return f;
}

// A frame whose batch columns do not fit: one duration short.
pb::Frame misshapen() {
  pb::Frame f;
  pb::ApiCalls& batch = *f.add_api_calls() = encode_batch(9, {copy(100, 1), copy(200, 2)});
  batch.mutable_duration()->RemoveLast();
  return f;
}

// The GPU records of mixed_file, as written.
std::vector<GpuRecord> gpu_records() {
  GpuRecord set = make_copy(0, 0, 0, 4096, 5000, 40, 13);
  set.kind = GpuKind::kMemset;
  set.detail = 0xab;
  set.src_kind = 0;
  set.copy_kind = 0;
  set.dst_kind = 3;
  GpuRecord sync{};
  sync.kind = GpuKind::kSync;
  sync.start_ns = 6000;
  sync.end_ns = 6100;
  sync.detail = 3;
  sync.correlation = 14;
  GpuRecord graph_kernel = make_kernel(0x10, 7000, 50, 15);
  graph_kernel.graph = 2;
  graph_kernel.graph_node = 1234567890123;
  graph_kernel.registers = 32;
  graph_kernel.device = 1;
  // A set before a copy: their optional columns' places differ.
  return {make_kernel(0x10, 2000, 500, 11), set, make_copy(1, 1, 2, 1u << 20, 2600, 90, 12), sync,
          graph_kernel};
}

// Thread 1's calls of mixed_file's first frame, as written.
std::vector<ApiRecord> thread_calls() {
  return {launch(1000, 0x10, 11), copy(1100, 12), allocation(1200), launch(1300, 0x11, 16)};
}

std::string mixed_file(const std::string& name) {
  SidecarBuilder b;
  b.header(test_header())
      .strings({{0x10, "kernel_a"}, {0x11, "kernel_b"}})
      .named(pb::StringEntry::NVTX, {{1u << 28, "aten::mm"}, {(1u << 28) + 1, "step"}})
      // Mixed calls and ranges of two threads in one drain; one thread's
      // ranges carry torch's numbers, the other's none.
      .drain({{1, thread_calls()}, {2, {copy(1050, 17)}}},
             {{1,
               {op(RangeOp::kPush, 990, (1u << 28) + 1, 0, 0),
                op(RangeOp::kPush, 995, 1u << 28, 12, 34), op(RangeOp::kPop, 1400, 0, 0, 0),
                op(RangeOp::kMark, 1401, 1u << 28, 0, 0)}},
              {2,
               {make_range_event(RangeOp::kStart, 1000, 1u << 28, 9),
                make_range_event(RangeOp::kEnd, 1200, 0, 9)}}})
      .calls(3, {})  // an empty batch
      .gpu(gpu_records())
      .frame(with_runtime())
      .frame(misshapen())  // a bad frame: nothing of it delivered
      .external({{11, 99}, {12, 100}})
      .drain({{1, {launch(8000, 0x10, 18)}}}, {{1, {op(RangeOp::kPop, 9000, 0, 0, 0)}}})
      .footer(pb::Footer{});
  return write_temp_file(name, b.bytes());
}

TEST_CASE("batches give the records the per-record calls give", "[formats][batches]") {
  const std::string path = mixed_file("record_batches_mixed.gprof");
  RecordLines records;
  const ReadStatus by_record = read_file(path, records);
  BatchLines batches;
  const ReadStatus by_batch = read_file(path, batches);

  CHECK(by_record.bad_frames == 1);
  CHECK(by_batch.bad_frames == 1);
  CHECK(by_batch.frames == by_record.frames);
  CHECK(by_batch.records == by_record.records);
  CHECK(by_batch.records == 7);  // 5 + 0 + 1 + 1 calls; the bad frame's 2 are not counted
  CHECK(by_batch.gpu_records == 5);
  CHECK(by_batch.range_events == 7);
  REQUIRE(records.lines.size() == 7 + 5 + 7 + 2);
  CHECK(batches.lines == records.lines);
  // The records as they were written (both ways above read the columns
  // through the cursors: this checks the cursors themselves).
  std::vector<std::string> written;
  for (const GpuRecord& r : gpu_records())
    written.push_back(gpu_line(r.kind, r.start_ns, r.end_ns, r.correlation, r.device, r.stream,
                               r.graph, r.graph_node, r.kernel, r.grid, r.block, r.shared_mem,
                               r.registers, r.bytes, r.copy_kind, r.src_kind, r.peer_device,
                               r.dst_kind, r.detail));
  const auto first_gpu = std::find_if(batches.lines.begin(), batches.lines.end(),
                                      [](const std::string& l) { return l.starts_with("gpu "); });
  REQUIRE(batches.lines.end() - first_gpu >= 5);
  CHECK(std::vector<std::string>(first_gpu, first_gpu + 5) == written);
  std::vector<std::string> calls;
  for (const ApiRecord& r : thread_calls())
    calls.push_back(api_line(r.api, 1, r.start_ns, r.end_ns, r.result, r.correlation, r.kernel,
                             r.grid, r.block, r.shared_mem, r.stream, r.bytes, r.address,
                             r.copy_kind, 0));  // encode_batch writes no runtime column
  CHECK(std::vector<std::string>(batches.lines.begin(), batches.lines.begin() + 4) == calls);
  // A batch with one: the call's runtime is there.
  CHECK(std::count(batches.lines.begin(), batches.lines.end(),
                   api_line(ApiId::cudaMemcpyAsync, 4, 1500, 1530, 0, 20, 0, {}, {}, 0,
                            0x7f0000002000, 1u << 20, 0, 1, 12)) == 1);
  // The empty batch is handed out as one, of no records.
  CHECK(std::count(batches.sizes.begin(), batches.sizes.end(), 0u) == 1);

  BatchLines pipelined;
  const ReadStatus by_pool = read_file_pipelined(path, pipelined, 2);
  CHECK(pipelined.lines == records.lines);
  CHECK(by_pool.bad_frames == 1);
}

TEST_CASE("a batch's optional columns follow its records' fields", "[formats][batches]") {
  // Calls: a launch (kernel, grid, block, shared memory, stream), a copy
  // (stream, bytes, copy kind), a malloc (bytes, address), a launch.
  const uint32_t api[] = {
      static_cast<uint32_t>(ApiId::cudaLaunchKernel), static_cast<uint32_t>(ApiId::cudaMemcpyAsync),
      static_cast<uint32_t>(ApiId::cudaMalloc), static_cast<uint32_t>(ApiId::cudaLaunchKernel)};
  const int64_t start_delta[] = {100, 10, -5, 20};
  const uint64_t duration[] = {1, 2, 3, 4};
  const int32_t result[] = {0, 0, 2, 0};
  const uint64_t correlation[] = {1, 2, 0, 3};
  const uint32_t kernel[] = {7, 8}, gx[] = {1, 2}, gy[] = {3, 4}, gz[] = {5, 6};
  const uint32_t bx[] = {9, 10}, by[] = {11, 12}, bz[] = {13, 14}, shared[] = {15, 16};
  const uint64_t stream[] = {100, 200, 300};
  const uint64_t bytes[] = {4096, 8192};
  const uint64_t address[] = {0xabc};
  const uint32_t copy_kind[] = {2};
  ApiBatch b;
  b.tid = 5;
  b.base_ns = 1000;
  b.size = 4;
  b.api = api;
  b.start_delta = start_delta;
  b.duration = duration;
  b.result = result;
  b.correlation = correlation;
  b.kernel = kernel;
  b.grid_x = gx;
  b.grid_y = gy;
  b.grid_z = gz;
  b.block_x = bx;
  b.block_y = by;
  b.block_z = bz;
  b.shared_mem = shared;
  b.stream = stream;
  b.bytes = bytes;
  b.address = address;
  b.copy_kind = copy_kind;
  std::vector<ApiRecord> out;
  for_each_api_record(b, [&](const ApiRecord& r) { out.push_back(r); });
  REQUIRE(out.size() == 4);
  CHECK(out[0].start_ns == 1100);
  CHECK(out[1].start_ns == 1110);
  CHECK(out[2].start_ns == 1105);  // a negative delta goes back
  CHECK(out[3].end_ns == 1125 + 4);
  CHECK(out[0].kernel == 7);
  CHECK(out[0].stream == 100);
  CHECK(out[1].kernel == 0);
  CHECK(out[1].stream == 200);
  CHECK(out[1].bytes == 4096);
  CHECK(out[1].copy_kind == 2);
  CHECK(out[2].bytes == 8192);
  CHECK(out[2].address == 0xabc);
  CHECK(out[2].stream == 0);
  CHECK(out[2].result == 2);
  CHECK(out[3].kernel == 8);
  CHECK(out[3].grid.x == 2);
  CHECK(out[3].block.z == 14);
  CHECK(out[3].shared_mem == 16);
  CHECK(out[3].stream == 300);
  CHECK(out[3].runtime == 0);  // no runtime column

  ApiBatch empty;
  ApiCursor none(empty);
  CHECK_FALSE(none.next());
  CHECK_FALSE(none.next());
  RangeBatch no_events;
  CHECK_FALSE(RangeCursor(no_events).next());
  GpuBatch no_records;
  CHECK_FALSE(GpuCursor(no_records).next());
}

}  // namespace
}  // namespace gprof
