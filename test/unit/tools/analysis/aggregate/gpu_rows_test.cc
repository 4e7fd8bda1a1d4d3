// The ops view with GPU records (docs/architecture.md §7): GPU activity rows, API rows'
// Self CUDA / CUDA total from the work their calls issued, pairing through
// external correlations, graph launches, unpaired work, CPU-only files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/render/table.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

struct Loaded {
  std::vector<FileInfo> files;
  std::vector<Row> rows;
};

Loaded load(const std::vector<std::string>& paths) {
  KeyAverages averages;
  OpsRowsVisitor visitor(averages);
  Loaded out;
  out.files = load_files(paths, visitor);
  out.rows = averages.finish();
  return out;
}

const Row& find(const std::vector<Row>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
  INFO(name);
  REQUIRE(it != rows.end());
  return *it;
}

bool has(const std::vector<Row>& rows, const std::string& name) {
  return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
}

void check_gpu_row(const Row& row, uint64_t count, uint64_t device_ns) {
  INFO(row.name);
  CHECK(row.kind == RowKind::kGpu);
  CHECK(row.count == count);
  CHECK(row.self_device_ns == device_ns);
  CHECK(row.device_total_ns == device_ns);
  CHECK(row.self_cpu_ns == 0);
  CHECK(row.cpu_total_ns == 0);
}

// An API row carries no CUDA time, as torch's runtime events; `device_ns`
// is what its calls issued (the api view's GPU time).
void check_api_row(const Row& row, uint64_t count, uint64_t cpu_ns, uint64_t device_ns) {
  INFO(row.name);
  CHECK(row.kind == RowKind::kApi);
  CHECK(row.count == count);
  CHECK(row.cpu_total_ns == cpu_ns);
  CHECK(row.self_device_ns == 0);
  CHECK(row.device_total_ns == 0);
  CHECK(row.issued_device_ns == device_ns);
}

TEST_CASE("ops rows: GPU activity rows and the API rows that issued them", "[gpu_rows]") {
  const Loaded loaded = load({write_subscribed_capture("ops.gprof")});
  const std::vector<Row>& rows = loaded.rows;

  // Kernel rows come from GPU records: executions, not launches (the
  // unpaired square run counts too).
  check_gpu_row(find(rows, "square(float*, int)"), 3, 4000 + 6000 + 100);
  check_gpu_row(find(rows, "vector_add"), 1, 1000);
  check_gpu_row(find(rows, "Memcpy HtoD (Pageable -> Device)"), 1, 2000);
  check_gpu_row(find(rows, "Memcpy DtoH (Device -> Pinned)"), 1, 1500);
  check_gpu_row(find(rows, "Memset (Device)"), 1, 500);
  CHECK_FALSE(has(rows, "Stream Synchronize"));  // sync records are no rows

  // API rows: the durations of the work their calls issued.
  check_api_row(find(rows, "cudaLaunchKernel"), 3, 600, 4000 + 6000 + 1000);
  CHECK(find(rows, "cudaLaunchKernel").issued_avg_ns() == Approx(11000.0 / 3));
  check_api_row(find(rows, "cudaMemcpyAsync"), 1, 500, 2000);
  check_api_row(find(rows, "cudaMemsetAsync"), 1, 50, 500);
  check_api_row(find(rows, "cudaMemcpy"), 1, 3000, 1500);
  check_api_row(find(rows, "cudaStreamSynchronize"), 1, 10000, 0);  // waits are not work

  const GpuCounts& gpu = loaded.files.at(0).gpu;
  CHECK(gpu.records == 8);
  CHECK(gpu.kernels == 4);
  CHECK(gpu.copies == 2);
  CHECK(gpu.sets == 1);
  CHECK(gpu.syncs == 1);
  CHECK(gpu.unpaired == 1);
  CHECK(gpu.no_timestamp == 0);
  REQUIRE(loaded.files[0].cupti);
  CHECK(loaded.files[0].cupti->state() == pb::CuptiStatus::SUBSCRIBED);
}

TEST_CASE("ops rows: Self CUDA % is a share of the GPU activity rows", "[gpu_rows]") {
  TableOptions options;
  options.sort = SortKey::kSelfDevice;
  options.time_unit = TimeUnit::kMicroseconds;
  const std::string text =
      render_table(load({write_subscribed_capture("pct.gprof")}).rows, options);
  // GPU activity total: 10100 + 1000 + 2000 + 1500 + 500 = 15100 ns.
  CHECK(text.find("Self CPU time total: 14.150us\nSelf CUDA time total: 15.100us\n") !=
        std::string::npos);
  // Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, Self CUDA,
  // Self CUDA %, CUDA total, CUDA time avg, # of Calls.
  // An API row: no CUDA time (its kernels are the kernel rows').
  CHECK(text.find("      cudaLaunchKernel         4.24%       0.600us         4.24%       0.600us"
                  "       0.200us       0.000us         0.00%       0.000us       0.000us"
                  "             3  \n") != std::string::npos);
  CHECK(text.find("   square(float*, int)         0.00%       0.000us         0.00%       0.000us"
                  "       0.000us      10.100us        66.89%      10.100us       3.367us"
                  "             3  \n") != std::string::npos);
  CHECK(text.find("      Memset (Device)         0.00%       0.000us         0.00%       0.000us"
                  "       0.000us       0.500us         3.31%       0.500us       0.500us"
                  "             1  \n") != std::string::npos);
}

TEST_CASE("ops rows: pairing through external correlations", "[gpu_rows]") {
  // Another tool holds the subscriber: API calls carry the ids gprof pushed
  // (1001, 1002), GPU records CUPTI's (7, 8); the mapping comes last.
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  status.set_reason("CUPTI subscriber taken by another tool");
  SidecarBuilder file;
  file.header(test_header())
      .cupti(status)
      .strings({{1, "_Z6squarePfi"}})
      .gpu({make_kernel(1, 2000, 700, 7),
            make_copy(kCopyDtoD, kMemDevice, kMemDevice, 64, 3000, 300, 8),
            make_kernel(1, 4000, 50, 9)})  // no mapping, no call of that id
      .calls(3, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 1001),
                 make_correlated(ApiId::cudaMemcpyAsync, 1500, 100, 1002)})
      .external({{7, 1001}, {8, 1002}});
  const Loaded loaded = load({write_temp_file("external.gprof", file.bytes())});
  check_api_row(find(loaded.rows, "cudaLaunchKernel"), 1, 100, 700);
  check_api_row(find(loaded.rows, "cudaMemcpyAsync"), 1, 100, 300);
  check_gpu_row(find(loaded.rows, "square(float*, int)"), 2, 750);
  check_gpu_row(find(loaded.rows, "Memcpy DtoD (Device -> Device)"), 1, 300);
  CHECK(loaded.files[0].gpu.unpaired == 1);
  CHECK(loaded.files[0].gpu.external_correlations == 2);
}

TEST_CASE("ops rows: a graph launch pairs with all of its kernels", "[gpu_rows]") {
  GpuRecord a = make_kernel(1, 2000, 100, 50);
  GpuRecord b = make_kernel(2, 2150, 200, 50);
  GpuRecord c = make_kernel(1, 2400, 300, 50);
  a.graph = b.graph = c.graph = 4;
  a.graph_node = 1;
  b.graph_node = 2;
  c.graph_node = 3;
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}, {2, "vector_add"}})
      .calls(3, {make_correlated(ApiId::cudaGraphLaunch, 1000, 100, 50)})
      .gpu({c, a, b});  // out of order, as CUPTI buffers may deliver them
  const Loaded loaded = load({write_temp_file("graph.gprof", file.bytes())});
  check_api_row(find(loaded.rows, "cudaGraphLaunch"), 1, 100, 600);
  CHECK(find(loaded.rows, "cudaGraphLaunch").issued_avg_ns() == 600);
  check_gpu_row(find(loaded.rows, "square(float*, int)"), 2, 400);
  check_gpu_row(find(loaded.rows, "vector_add"), 1, 200);
  CHECK(loaded.files[0].gpu.unpaired == 0);
}

TEST_CASE("ops rows: unpaired GPU work is still GPU activity", "[gpu_rows]") {
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}})
      .calls(3, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 0)})   // no correlation
      .gpu({make_kernel(1, 2000, 800, 5), make_kernel(9, 3000, 200, 6)});  // 9: never named
  const Loaded loaded = load({write_temp_file("unpaired.gprof", file.bytes())});
  check_gpu_row(find(loaded.rows, "square(float*, int)"), 1, 800);
  check_gpu_row(find(loaded.rows, "<unknown kernel>"), 1, 200);
  check_api_row(find(loaded.rows, "cudaLaunchKernel"), 1, 100, 0);
  CHECK(loaded.files[0].gpu.unpaired == 2);
}

TEST_CASE("ops rows: records without a timestamp are counted, not shown", "[gpu_rows]") {
  SidecarBuilder file;
  file.header(test_header())
      .strings({{1, "_Z6squarePfi"}})
      .calls(3, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 1)})
      .gpu({make_kernel(1, 0, 0, 1), make_kernel(1, 2000, 300, 1)});
  const Loaded loaded = load({write_temp_file("zero.gprof", file.bytes())});
  check_gpu_row(find(loaded.rows, "square(float*, int)"), 1, 300);
  check_api_row(find(loaded.rows, "cudaLaunchKernel"), 1, 100, 300);
  CHECK(loaded.files[0].gpu.no_timestamp == 1);
  CHECK(loaded.files[0].gpu.records == 1);
  CHECK(loaded.files[0].status.gpu_records == 2);
}

TEST_CASE("ops rows: a CPU-only file keeps launch-count kernel rows", "[gpu_rows]") {
  pb::CuptiStatus cpu_only;
  cpu_only.set_state(pb::CuptiStatus::CPU_ONLY);
  cpu_only.set_reason("cuptiSubscribe: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  SidecarBuilder cpu;
  cpu.header(test_header())
      .cupti(cpu_only)
      .strings({{1, "_Z6squarePfi"}})
      .calls(3, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 0),
                 make_launch(ApiId::cudaLaunchKernel, 2000, 100, 1, 0),
                 make_launch(ApiId::cudaLaunchKernel, 3000, 100, 0, 0)});
  // A second process with GPU records: its kernel row counts executions,
  // and its launch of a kernel that never ran makes no row.
  SidecarBuilder gpu;
  gpu.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}, {2, "never_ran"}})
      .calls(3, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 1),
                 make_launch(ApiId::cudaLaunchKernel, 2000, 100, 2, 2)})
      .gpu({make_kernel(1, 1500, 400, 1)});
  const Loaded loaded = load({write_temp_file("cpu_only.gprof", cpu.bytes()),
                              write_temp_file("with_gpu.gprof", gpu.bytes())});
  check_gpu_row(find(loaded.rows, "square(float*, int)"), 2 + 1, 400);
  check_gpu_row(find(loaded.rows, "<unknown kernel>"), 1, 0);
  CHECK_FALSE(has(loaded.rows, "never_ran"));
  check_api_row(find(loaded.rows, "cudaLaunchKernel"), 5, 500, 400);
  CHECK(loaded.files[0].gpu.records == 0);
  CHECK(loaded.files[0].cupti->reason() == "cuptiSubscribe: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  CHECK(loaded.files[1].gpu.records == 1);
}

}  // namespace
}  // namespace gprof::analysis
