// Loading sidecar files and turning their API calls into rows.
#include "tools/analysis/aggregate/ops_rows.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {
namespace {

using test::make_call;
using test::SidecarBuilder;

ApiRecord launch(ApiId api, uint64_t start, uint64_t duration, uint32_t kernel) {
  ApiRecord r = make_call(api, start, duration);
  r.kernel = kernel;
  return r;
}

const Row* find(const std::vector<Row>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
  return it == rows.end() ? nullptr : &*it;
}

pb::Footer footer_with(std::vector<std::pair<std::string, uint64_t>> losses) {
  pb::Footer footer;
  for (const auto& [reason, count] : losses) {
    pb::Loss* loss = footer.add_losses();
    loss->set_reason(reason);
    loss->set_count(count);
  }
  return footer;
}

TEST_CASE("api rows: display names, kernel rows, several files", "[api_rows]") {
  SidecarBuilder first;
  first.header(test::test_header())
      .strings({{1, "_Z6squarePfi"}, {2, "vector_add"}})
      .calls(10, {launch(ApiId::cudaLaunchKernelInternal, 100, 20, 1),
                  launch(ApiId::cudaLaunchKernel, 200, 30, 1),
                  launch(ApiId::cudaLaunchKernel_ptsz, 300, 10, 2),
                  launch(ApiId::cudaLaunchKernel, 400, 10, 99),  // never defined
                  make_call(ApiId::cudaMalloc, 500, 1000)})
      .footer(footer_with({{"ring_full", 12}, {"no_ring", 0}}));
  // The second process uses id 1 for a different kernel.
  SidecarBuilder second;
  second.header(test::test_header())
      .strings({{1, "vector_add"}})
      .calls(10, {launch(ApiId::cudaLaunchKernel, 100, 40, 1),
                  make_call(ApiId::cudaDeviceSynchronize, 200, 5000)})
      .footer(footer_with({{"ring_full", 3}, {"write_error", 1}}));

  KeyAverages averages;
  OpsRowsVisitor visitor(averages);
  const auto files = load_files({test::write_temp_file("rows1.gprof", first.bytes()),
                                 test::write_temp_file("rows2.gprof", second.bytes())},
                                visitor);
  REQUIRE(files.size() == 2);
  CHECK(files[0].status.complete);
  CHECK(files[0].header->pid() == 42);
  CHECK(files[1].footer.has_value());
  const auto rows = averages.finish();

  const Row* launches = find(rows, "cudaLaunchKernel");
  REQUIRE(launches);
  CHECK(launches->count == 5);
  CHECK(launches->cpu_total_ns == 20 + 30 + 10 + 10 + 40);
  CHECK(launches->self_cpu_ns == launches->cpu_total_ns);
  CHECK_FALSE(find(rows, "__cudaLaunchKernel"));
  CHECK_FALSE(find(rows, "cudaLaunchKernel_ptsz"));

  const Row* square = find(rows, "square(float*, int)");
  REQUIRE(square);
  CHECK(square->kind == RowKind::kGpu);
  CHECK(square->count == 2);
  CHECK(square->cpu_total_ns == 0);
  const Row* add = find(rows, "vector_add");
  REQUIRE(add);
  CHECK(add->count == 2);  // once in each file, under different ids
  const Row* unknown = find(rows, "<unknown kernel>");
  REQUIRE(unknown);
  CHECK(unknown->count == 1);
  CHECK(find(rows, "cudaMalloc")->cpu_total_ns == 1000);
  CHECK(find(rows, "cudaDeviceSynchronize")->count == 1);

  const auto losses = total_losses(files);
  REQUIRE(losses.size() == 2);
  CHECK(format_losses(losses) == "ring_full=15 write_error=1");
}

TEST_CASE("api rows: threads of different files never nest", "[api_rows]") {
  SidecarBuilder a;
  a.header(test::test_header()).calls(7, {make_call(ApiId::cudaDeviceSynchronize, 0, 1000)});
  SidecarBuilder b;
  b.header(test::test_header()).calls(7, {make_call(ApiId::cudaMalloc, 10, 100)});
  KeyAverages averages;
  OpsRowsVisitor visitor(averages);
  load_files({test::write_temp_file("nest_a.gprof", a.bytes()),
              test::write_temp_file("nest_b.gprof", b.bytes())},
             visitor);
  const auto rows = averages.finish();
  CHECK(find(rows, "cudaDeviceSynchronize")->self_cpu_ns == 1000);
}

TEST_CASE("load_files: unreadable files are reported, not thrown", "[api_rows]") {
  KeyAverages averages;
  OpsRowsVisitor visitor(averages);
  const auto files = load_files({"/nonexistent.gprof"}, visitor);
  REQUIRE(files.size() == 1);
  CHECK_FALSE(files[0].status.opened);
  CHECK_FALSE(files[0].header);
  CHECK(averages.finish().empty());
  CHECK(format_losses(total_losses(files)).empty());
}

TEST_CASE("demangle", "[api_rows]") {
  CHECK(demangle("_Z6squarePfi") == "square(float*, int)");
  CHECK(demangle("_ZN5torch6kernelIfEEvPT_i") == "void torch::kernel<float>(float*, int)");
  CHECK(demangle("vector_add") == "vector_add");
  CHECK(demangle("i") == "i");  // extern "C" kernel, not the type int
  CHECK(demangle("_Znot_valid") == "_Znot_valid");
  CHECK(demangle("").empty());
}

}  // namespace
}  // namespace gprof::analysis
