// The key-averages rows of a capture with NVTX ranges (ops_rows.h,
// docs/architecture.md §7), on training_fixture.h's file: attribution to ranges,
// memory, [memory], --group-by, --range, --top-level-only, and the scope the
// memory and launches views take from it.
#include "tools/analysis/aggregate/ops_rows.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "test/unit/tools/training_fixture.h"
#include "tools/analysis/aggregate/launches.h"
#include "tools/analysis/aggregate/transfers.h"
#include "tools/analysis/read/visitor_chain.h"
#include "tools/analysis/render/table.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

constexpr int64_t kMiB = 1024 * 1024;

OpsOptions by(GroupBy group_by) {
  OpsOptions options;
  options.group_by = group_by;
  return options;
}

OpsOptions inside(std::vector<std::string> ranges) {
  OpsOptions options;
  options.ranges = std::move(ranges);
  return options;
}

struct Loaded {
  std::vector<FileInfo> files;
  std::vector<Row> rows;
  bool saw_memory = false;
};

Loaded load(const std::vector<std::string>& paths, OpsOptions options = {}) {
  KeyAverages averages;
  OpsRowsVisitor visitor(averages, std::move(options));
  Loaded out;
  out.files = load_files(paths, visitor);
  out.rows = averages.finish();
  out.saw_memory = visitor.saw_memory();
  return out;
}

const Row& find(const std::vector<Row>& rows, const std::string& name,
                const std::string& group = "") {
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const Row& r) { return r.name == name && r.group == group; });
  INFO(name << " [" << group << "]");
  REQUIRE(it != rows.end());
  return *it;
}

bool has(const std::vector<Row>& rows, const std::string& name) {
  return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
}

struct Want {
  uint64_t count, self_cpu, cpu_total, self_cuda, cuda_total;
};

// For an API row, self_cuda and cuda_total are what its calls issued: the
// row itself carries no CUDA time, as torch's runtime events.
void check(const Row& row, RowKind kind, const Want& want) {
  INFO(row.name);
  CHECK(row.kind == kind);
  CHECK(row.count == want.count);
  CHECK(row.self_cpu_ns == want.self_cpu);
  CHECK(row.cpu_total_ns == want.cpu_total);
  if (kind == RowKind::kApi) {
    CHECK(row.self_device_ns == 0);
    CHECK(row.device_total_ns == 0);
    CHECK(row.issued_device_ns == want.self_cuda);
    CHECK(want.self_cuda == want.cuda_total);
  } else {
    CHECK(row.self_device_ns == want.self_cuda);
    CHECK(row.device_total_ns == want.cuda_total);
  }
}

TEST_CASE("ops rows: ranges, calls and GPU work of a training loop", "[ops_rows]") {
  const Loaded loaded = load({write_training_capture("ops_training.gprof")});
  const auto& rows = loaded.rows;
  // Ranges: self CPU minus direct children; CUDA total of everything issued
  // inside at any depth; Self CUDA of the calls directly inside.
  check(find(rows, "ProfilerStep#0"), RowKind::kRange, {1, 3000, 20000, 0, 11000});
  check(find(rows, "ProfilerStep#1"), RowKind::kRange, {1, 3000, 20000, 0, 7000});
  check(find(rows, "forward"), RowKind::kRange, {2, 2000 + 6000, 18000, 0, 12000});
  check(find(rows, "aten::mm"), RowKind::kRange, {3, 3 * 2500, 9000, 12000, 12000});
  check(find(rows, "backward"), RowKind::kRange, {2, 3000 + 3500, 16000, 6000, 6000});
  // A start/end range: its own duration, no children.
  check(find(rows, "data loading"), RowKind::kRange, {1, 4000, 4000, 0, 0});
  // Open at exit: closed at the footer's time.
  check(find(rows, "prefetch"), RowKind::kRange, {1, 8000, 8000, 0, 0});
  CHECK_FALSE(has(rows, "checkpoint"));  // marks make no rows

  // API calls carry no CUDA time (torch appends kernels to the op, never to
  // the runtime event); what they issued is kept for --view api.
  check(find(rows, "cudaLaunchKernel"), RowKind::kApi, {5, 2500, 2500, 16000, 16000});
  CHECK(find(rows, "cudaLaunchKernel").device_total_ns == 0);
  check(find(rows, "cudaMemcpyAsync"), RowKind::kApi, {3, 3000, 3000, 3000, 3000});
  check(find(rows, "cudaMemcpy"), RowKind::kApi, {1, 2000, 2000, 1000, 1000});
  check(find(rows, "cudaStreamSynchronize"), RowKind::kApi, {2, 6000, 6000, 0, 0});
  check(find(rows, "square(float*, int)"), RowKind::kGpu, {3, 0, 0, 12000, 12000});
  check(find(rows, "vector_add"), RowKind::kGpu, {2, 0, 0, 4000, 4000});
  check(find(rows, "Memcpy DtoH (Device -> Pinned)"), RowKind::kGpu, {2, 0, 0, 2000, 2000});
  check(find(rows, "Memcpy HtoD (Pageable -> Device)"), RowKind::kGpu, {1, 0, 0, 1000, 1000});
  CHECK(find(rows, "vector_add").gpu_kind == GpuKind::kKernel);
  CHECK(find(rows, "Memcpy HtoD (Pinned -> Device)").gpu_kind == GpuKind::kMemcpy);

  const TableTotals totals = table_totals(rows);
  CHECK(totals.self_cpu_ns == 40000 + 17000);
  CHECK(totals.self_device_ns == 20000);

  const RangeCounts& counts = loaded.files[0].ranges;
  CHECK(counts.push_pop == 10);
  CHECK(counts.start_end == 1);
  CHECK(counts.marks == 1);
  CHECK(counts.unbalanced_pops == 1);
  CHECK(counts.open_at_exit == 1);
  CHECK(counts.cross_thread == 1);
  CHECK(counts.ends_without_start == 0);
  CHECK(loaded.files[0].thread_names.at(100) == "main");
  CHECK(loaded.files[0].thread_names.at(200) == "loader");
  CHECK(loaded.files[0].first_ns == 1000);  // thread names are no records
  CHECK(loaded.files[0].last_ns == 55000);
}

TEST_CASE("ops rows: memory columns and the [memory] row", "[ops_rows]") {
  const Loaded loaded = load({write_training_capture("ops_memory.gprof")});
  CHECK(loaded.saw_memory);
  const auto& rows = loaded.rows;
  const Row& forward = find(rows, "forward");
  CHECK(forward.self_device_mem == kMiB);
  CHECK(forward.device_mem == kMiB);
  const Row& backward = find(rows, "backward");
  CHECK(backward.self_device_mem == -kMiB);
  CHECK(backward.device_mem == -kMiB);
  const Row& step = find(rows, "ProfilerStep#0");
  CHECK(step.self_device_mem == 0);
  CHECK(step.device_mem == 0);  // allocated and freed inside
  const Row& malloc_row = find(rows, "cudaMalloc");
  CHECK(malloc_row.count == 2);
  CHECK(malloc_row.device_mem == 5 * kMiB);
  CHECK(malloc_row.self_device_mem == 5 * kMiB);
  CHECK(find(rows, "cudaFree").device_mem == -kMiB);
  CHECK(find(rows, "cudaMallocHost").cpu_mem == kMiB);
  // Outside any range: the first cudaMalloc and the cudaMallocHost.
  const Row& memory = find(rows, "[memory]");
  CHECK(memory.kind == RowKind::kMemory);
  CHECK(memory.count == 2);
  CHECK(memory.device_mem == 4 * kMiB);
  CHECK(memory.self_device_mem == 4 * kMiB);
  CHECK(memory.cpu_mem == kMiB);
  CHECK(memory.self_cpu_mem == kMiB);
  CHECK(memory.self_cpu_ns == 0);

  // A file without allocations shows no memory.
  CHECK_FALSE(load({write_subscribed_capture("ops_no_memory.gprof")}).saw_memory);
}

// What the shim records for PyTorch's emit_nvtx ranges
// ("aten::mm, seq = 3, op_id = 10, sizes = [[8, 16], [16, 4]], input_op_ids = ..."):
// the message without seq, op_id and input_op_ids, and seq + 1 and op_id as numbers.
std::string torch_ops_capture() {
  std::vector<RangeEvent> events;
  const auto op = [&](uint64_t start, uint64_t end, uint32_t name, uint64_t seq, uint64_t op_id) {
    RangeEvent push = make_range_event(RangeOp::kPush, start, name);
    push.seq = seq;
    push.op_id = op_id;
    events.push_back(push);
    events.push_back(make_range_event(RangeOp::kPop, end));
  };
  op(0, 100, 1, 3 + 1, 10);    // aten::mm of [[8, 16], [16, 4]], seq 3
  op(200, 300, 1, 4 + 1, 11);  // the same shapes, seq 4
  op(400, 450, 2, 5 + 1, 12);  // aten::mm of [[2, 3], [3, 4]], seq 5
  op(500, 520, 3, 3 + 1, 13);  // its backward: seq 3 again
  op(600, 610, 4, 0, 14);      // an op without tensors
  op(700, 800, 5, 0, 0);       // not an op
  pb::Footer footer;
  footer.set_end_clock_ns(1000);
  SidecarBuilder file;
  file.header(test_header())
      .named(pb::StringEntry::NVTX, {{1, "aten::mm, sizes = [[8, 16], [16, 4]]"},
                                     {2, "aten::mm, sizes = [[2, 3], [3, 4]]"},
                                     {3, "MmBackward0"},
                                     {4, "aten::empty"},
                                     {5, "forward"}})
      .ranges(100, events)
      .footer(footer);
  return file.bytes();
}

TEST_CASE("ops rows: PyTorch ops by name, input shapes and sequence number", "[ops_rows]") {
  const std::string path = write_temp_file("torch_ops.gprof", torch_ops_capture());
  SECTION("by name: every call of an op in one row, as torch's key_averages") {
    const auto rows = load({path}).rows;
    CHECK(find(rows, "aten::mm").count == 3);
    CHECK(find(rows, "aten::mm").cpu_total_ns == 250);
    CHECK(find(rows, "MmBackward0").count == 1);
    CHECK_FALSE(has(rows, "aten::mm, sizes = [[8, 16], [16, 4]]"));
  }
  SECTION("input-shape: name and shapes, as group_by_input_shape") {
    const auto rows = load({path}, by(GroupBy::kInputShape)).rows;
    const Row& big = find(rows, "aten::mm", "[[8, 16], [16, 4]]");
    CHECK(big.count == 2);
    CHECK(big.cpu_total_ns == 200);
    CHECK(find(rows, "aten::mm", "[[2, 3], [3, 4]]").count == 1);
    CHECK(find(rows, "MmBackward0", "[]").count == 1);
    CHECK(find(rows, "aten::empty", "[]").count == 1);
    CHECK(find(rows, "forward", "").count == 1);
    CHECK(group_title(GroupBy::kInputShape) == "Input Shapes");
  }
  SECTION("seq: a backward op shares its forward op's number") {
    const auto rows = load({path}, by(GroupBy::kSeq)).rows;
    CHECK(find(rows, "aten::mm", "3").count == 1);
    CHECK(find(rows, "MmBackward0", "3").count == 1);
    CHECK(find(rows, "aten::mm", "4").count == 1);
    CHECK(find(rows, "aten::empty", "").count == 1);
  }
}

TEST_CASE("ops rows: --group-by", "[ops_rows]") {
  const std::string path = write_training_capture("ops_group.gprof");
  SECTION("launch-config: what a call asked for, what a kernel ran with") {
    const auto rows = load({path}, by(GroupBy::kLaunchConfig)).rows;
    const std::string square = "grid=[4096, 1, 1] block=[256, 1, 1] smem=0";
    check(find(rows, "cudaLaunchKernel", square), RowKind::kApi, {3, 1500, 1500, 12000, 12000});
    check(find(rows, "cudaLaunchKernel", "grid=[1024, 1, 1] block=[128, 1, 1] smem=512"),
          RowKind::kApi, {2, 1000, 1000, 4000, 4000});
    CHECK(find(rows, "square(float*, int)", square).count == 3);
    CHECK(find(rows, "vector_add", "grid=[1024, 1, 1] block=[128, 1, 1] smem=1536").count == 2);
    CHECK(find(rows, "forward").count == 2);  // not a launch: no value
    CHECK(find(rows, "Memcpy DtoH (Device -> Pinned)").count == 2);
  }
  SECTION("stream: GPU work's, and a call's from the work it issued") {
    const auto rows = load({path}, by(GroupBy::kStream)).rows;
    CHECK(find(rows, "square(float*, int)", "7").count == 3);
    CHECK(find(rows, "vector_add", "9").count == 2);
    CHECK(find(rows, "cudaLaunchKernel", "7").count == 3);
    CHECK(find(rows, "cudaLaunchKernel", "9").count == 2);
    CHECK(find(rows, "cudaStreamSynchronize").count == 2);  // no work: no stream
  }
  SECTION("device") {
    const auto rows = load({path}, by(GroupBy::kDevice)).rows;
    CHECK(find(rows, "cudaLaunchKernel", "0").count == 5);
    CHECK(find(rows, "square(float*, int)", "0").device_total_ns == 12000);
  }
  SECTION("thread: named threads; GPU work by the issuing thread") {
    const auto rows = load({path}, by(GroupBy::kThread)).rows;
    CHECK(find(rows, "cudaMemcpyAsync", "100 (main)").count == 2);
    CHECK(find(rows, "cudaMemcpyAsync", "200 (loader)").count == 1);
    CHECK(find(rows, "Memcpy HtoD (Pageable -> Device)", "200 (loader)").count == 1);
    CHECK(find(rows, "data loading", "200 (loader)").count == 1);
    CHECK(find(rows, "forward", "100 (main)").cpu_total_ns == 18000);
    CHECK(find(rows, "[memory]", "100 (main)").count == 2);
  }
  SECTION("process: pid and rank; files aggregate otherwise") {
    const std::string other = write_training_capture("ops_group_rank1.gprof", 43, "1");
    const auto rows = load({path, other}, by(GroupBy::kProcess)).rows;
    CHECK(find(rows, "forward", "42").count == 2);
    CHECK(find(rows, "forward", "43 (rank 1)").count == 2);
    CHECK(find(rows, "[memory]", "43 (rank 1)").count == 2);
    const auto merged = load({path, other}).rows;
    check(find(merged, "forward"), RowKind::kRange, {4, 16000, 36000, 0, 24000});
  }
}

TEST_CASE("ops rows: --range keeps what is inside matching ranges", "[ops_rows]") {
  const std::string path = write_training_capture("ops_range.gprof");
  SECTION("push/pop ranges: their descendants") {
    const auto rows = load({path}, inside({"backward"})).rows;
    check(find(rows, "backward"), RowKind::kRange, {2, 6500, 16000, 6000, 6000});
    check(find(rows, "cudaLaunchKernel"), RowKind::kApi, {2, 1000, 1000, 4000, 4000});
    check(find(rows, "vector_add"), RowKind::kGpu, {2, 0, 0, 4000, 4000});
    CHECK(find(rows, "cudaFree").device_mem == -kMiB);
    for (const char* out : {"forward", "ProfilerStep#0", "square(float*, int)", "[memory]",
                            "cudaMalloc", "Memcpy HtoD (Pageable -> Device)", "data loading"}) {
      INFO(out);
      CHECK_FALSE(has(rows, out));
    }
    CHECK(table_totals(rows).self_device_ns == 4000 + 2000);
  }
  SECTION("globs; the decorated aten names match by their row name") {
    const auto rows = load({path}, inside({"aten::*"})).rows;
    CHECK(find(rows, "aten::mm").count == 3);
    CHECK(find(rows, "square(float*, int)").count == 3);
    CHECK(rows.size() == 3);  // aten::mm, cudaLaunchKernel, square
  }
  SECTION("start/end ranges: what lies inside them, on any thread") {
    const auto rows = load({path}, inside({"data loading"})).rows;
    check(find(rows, "data loading"), RowKind::kRange, {1, 4000, 4000, 0, 0});
    check(find(rows, "cudaMemcpyAsync"), RowKind::kApi, {1, 1000, 1000, 1000, 1000});
    CHECK(find(rows, "Memcpy HtoD (Pageable -> Device)").count == 1);
    CHECK(rows.size() == 3);
  }
  SECTION("nothing matches") {
    CHECK(load({path}, inside({"nope"})).rows.empty());
  }
}

TEST_CASE("ops rows: --top-level-only", "[ops_rows]") {
  OpsOptions options;
  options.top_level_only = true;
  const auto rows = load({write_training_capture("ops_top.gprof")}, options).rows;
  // Steps, calls outside ranges, the start/end and open ranges; GPU rows and
  // [memory] whole, as torch keeps device events.
  check(find(rows, "ProfilerStep#0"), RowKind::kRange, {1, 3000, 20000, 0, 11000});
  check(find(rows, "cudaMalloc"), RowKind::kApi, {1, 1000, 1000, 0, 0});
  check(find(rows, "cudaMemcpyAsync"), RowKind::kApi, {1, 1000, 1000, 1000, 1000});  // loader's
  CHECK(find(rows, "cudaMalloc").device_mem == 4 * kMiB);
  CHECK(find(rows, "data loading").count == 1);
  CHECK(find(rows, "prefetch").count == 1);
  CHECK(find(rows, "square(float*, int)").count == 3);
  CHECK(find(rows, "[memory]").count == 2);
  for (const char* out : {"forward", "backward", "aten::mm", "cudaLaunchKernel", "cudaFree"}) {
    INFO(out);
    CHECK_FALSE(has(rows, out));
  }
  CHECK(table_totals(rows).self_cpu_ns == 3000 + 3000 + 4000 + 8000 + 1000 + 1000 + 2000 + 1000);
}

TEST_CASE("ops rows: recursion in a file counts once", "[ops_rows]") {
  // f > f > launch (300 ns of work), on one thread.
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}})
      .named(pb::StringEntry::NVTX, {{1, "f"}})
      .calls(5, {make_launch(ApiId::cudaLaunchKernel, 300, 100, 1, 1)})
      .ranges(5,
              {make_range_event(RangeOp::kPush, 100, 1), make_range_event(RangeOp::kPush, 200, 1),
               make_range_event(RangeOp::kPop, 500), make_range_event(RangeOp::kPop, 1000)})
      .gpu({make_kernel(1, 450, 300, 1)});
  const auto rows = load({write_temp_file("recursion.gprof", file.bytes())}).rows;
  check(find(rows, "f"), RowKind::kRange, {2, 600 + 200, 900, 300, 300});
}

TEST_CASE("ops rows: the scope of the memory and launches views", "[ops_rows]") {
  const std::string path = write_training_capture("ops_scope.gprof");
  KeyAverages scratch;
  OpsRowsVisitor scope(scratch, inside({"backward"}));
  TransfersVisitor transfers(&scope);
  LaunchesVisitor launches(&scope);
  VisitorChain chain({&scope, &transfers, &launches});
  load_files({path}, chain);
  const auto copies = transfers.finish();
  REQUIRE(copies.size() == 1);
  CHECK(copies[0].name == "Memcpy DtoH (Device -> Pinned)");
  CHECK(copies[0].count == 2);
  CHECK(copies[0].bytes == 128 * 1024);
  CHECK(copies[0].gpu_ns == 2000);
  const auto rows = launches.finish();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "vector_add");
  CHECK(rows[0].count == 2);
  CHECK(rows[1].name == "Memcpy DtoH (Device -> Pinned)");

  TransfersVisitor all;
  load_files({path}, all);
  const auto every = all.finish();
  REQUIRE(every.size() == 3);  // by name, then size
  CHECK(every[0].name == "Memcpy DtoH (Device -> Pinned)");
  CHECK(every[0].bucket == 2);  // 64 KiB: 16-256 KB
  CHECK(every[1].name == "Memcpy HtoD (Pageable -> Device)");
  CHECK(every[1].bucket == 3);  // 256 KiB: 256 KB-4 MB
  CHECK(every[2].name == "Memcpy HtoD (Pinned -> Device)");
  CHECK(every[2].bytes == uint64_t{1} << 20);
  CHECK(every[2].bandwidth_gbps() == Approx(1048.576));  // 1 MiB in 1 us
}

}  // namespace
}  // namespace gprof::analysis
