// A JSON report as a baseline: what is read from it, and how a wrong or
// damaged document is refused.
#include <catch2/catch.hpp>

#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/training_fixture.h"
#include "tools/comparison/runs/json_baseline.h"
#include "tools/comparison/runs/sidecar_run.h"

namespace gprof::comparison {
namespace {

const std::string kReport = R"({
  "schema": "gprof.report", "version": 1, "view": "ops", "group_by": "stream",
  "sort": "cpu_time_total", "limit": 0, "files": [],
  "totals": {"self_cpu_ns": 9000, "self_cuda_ns": 7000},
  "rows": [
    {"name": "k", "kind": "kernel", "group": "7", "count": 3, "self_cpu_ns": 0,
     "cpu_total_ns": 0, "self_cuda_ns": 6000, "cuda_total_ns": 6000, "cpu_mem_bytes": 0,
     "self_cpu_mem_bytes": 0, "cuda_mem_bytes": 0, "self_cuda_mem_bytes": 0},
    {"name": "cudaMalloc", "kind": "api", "group": "", "count": 2, "self_cpu_ns": 400,
     "cpu_total_ns": 400, "self_cuda_ns": 0, "cuda_total_ns": 0, "cpu_mem_bytes": 0,
     "self_cpu_mem_bytes": 0, "cuda_mem_bytes": -4096, "self_cuda_mem_bytes": -4096}
  ]
})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("json baseline: rows, groups and totals", "[diff][json]") {
  const JsonBaseline baseline = parse_json_baseline(kReport);
  INFO(baseline.error);
  REQUIRE(baseline.rows);
  CHECK(baseline.group_by == "stream");
  CHECK_FALSE(baseline.ranges);  // written before reports recorded --range
  const RunRows& run = *baseline.rows;
  REQUIRE(run.rows.size() == 2);
  CHECK(run.rows[0].key == RowKey{"kernel", "k", "7"});
  CHECK(at(run.rows[0].values, Metric::kCount) == 3);
  CHECK(at(run.rows[0].values, Metric::kSelfCuda) == 6000);
  CHECK(at(run.rows[1].values, Metric::kSelfCudaMem) == -4096);
  // The report's totals (they cover rows --limit left out), counts from the rows.
  CHECK(at(run.totals, TotalMetric::kSelfCpu) == 9000);
  CHECK(at(run.totals, TotalMetric::kSelfCuda) == 7000);
  CHECK(at(run.totals, TotalMetric::kKernels) == 3);
  CHECK(at(run.totals, TotalMetric::kApiCalls) == 2);
}

TEST_CASE("json baseline: API rows of an older report lose their CUDA time", "[diff][json]") {
  // Reports written before API rows left their GPU time to the ranges (as torch's tables do)
  // have no gpu_time_ns: their API rows' CUDA time is read as 0, so that the API rows of a new
  // run do not all look 100% faster.
  const std::string old_api =
      R"({"name": "cudaLaunchKernel", "kind": "api", "group": "", "count": 5, "self_cpu_ns": 9,
          "cpu_total_ns": 9, "self_cuda_ns": 6000, "cuda_total_ns": 6000, "cpu_mem_bytes": 0,
          "self_cpu_mem_bytes": 0, "cuda_mem_bytes": 0, "self_cuda_mem_bytes": 0})";
  const std::string rows = "\"rows\": [\n";
  const JsonBaseline old = parse_json_baseline(replaced(kReport, rows, rows + old_api + ",\n"));
  INFO(old.error);
  REQUIRE(old.rows);
  CHECK(old.rows->rows[0].key == RowKey{"api", "cudaLaunchKernel", ""});
  CHECK(at(old.rows->rows[0].values, Metric::kSelfCuda) == 0);
  CHECK(at(old.rows->rows[0].values, Metric::kCudaTotal) == 0);
  CHECK(at(old.rows->rows[0].values, Metric::kSelfCpu) == 9);
  // A kernel row keeps its time.
  CHECK(at(old.rows->rows[1].values, Metric::kSelfCuda) == 6000);
}

TEST_CASE("json baseline: a report with only part of a run's rows is refused", "[diff][json]") {
  const JsonBaseline limited =
      parse_json_baseline(replaced(kReport, "\"limit\": 0", "\"limit\": 2"));
  CHECK_FALSE(limited.rows);
  CHECK(limited.error ==
        "the report holds 2 rows, its --limit: rows may be missing; make baselines with --limit "
        "0");
  CHECK(parse_json_baseline(replaced(kReport, "\"limit\": 0", "\"limit\": 3")).rows);
  const JsonBaseline kernels =
      parse_json_baseline(replaced(kReport, "\"view\": \"ops\"", "\"view\": \"kernels\""));
  CHECK_FALSE(kernels.rows);
  CHECK(kernels.error.find("the kernels view") != std::string::npos);
  const JsonBaseline top = parse_json_baseline(
      replaced(kReport, "\"limit\": 0,", "\"limit\": 0, \"top_level_only\": true,"));
  CHECK_FALSE(top.rows);
  CHECK(top.error.find("--top-level-only") != std::string::npos);
  const JsonBaseline ranged = parse_json_baseline(
      replaced(kReport, "\"limit\": 0,", "\"limit\": 0, \"ranges\": [\"step*\"],"));
  REQUIRE(ranged.rows);
  CHECK(ranged.ranges == std::vector<std::string>{"step*"});
  CHECK_FALSE(
      parse_json_baseline(replaced(kReport, "\"limit\": 0,", "\"limit\": 0, \"ranges\": [1],"))
          .rows);
}

TEST_CASE("json baseline: wrong schema, version, truncation, missing fields", "[diff][json]") {
  auto error = [](const std::string& text) {
    const JsonBaseline baseline = parse_json_baseline(text);
    CHECK_FALSE(baseline.rows);
    return baseline.error;
  };
  CHECK(error(kReport.substr(0, kReport.size() / 2)) ==
        "not valid JSON (truncated, or a number too large for a double?)");
  CHECK(error("[1, 2]") == "not a JSON object");
  CHECK(error(replaced(kReport, "gprof.report", "gprof.diff")) ==
        "not a gpuprof JSON report: its schema is \"gprof.diff\", expected \"gprof.report\"");
  CHECK(error(replaced(kReport, "\"version\": 1", "\"version\": 2")) ==
        "gprof.report version 2 is not supported; expected version 1");
  CHECK(error(replaced(kReport, "\"self_cuda_ns\": 6000", "\"self_cuda_ns\": \"6000\"")) ==
        "rows[0]: 'self_cuda_ns' is not a whole number of 0 or more");
  CHECK(error(replaced(kReport, "\"self_cuda_ns\": 6000", "\"self_cuda_ns\": -1")) ==
        "rows[0]: 'self_cuda_ns' is not a whole number of 0 or more");
  CHECK(error(replaced(kReport, "\"self_cuda_ns\": 6000", "\"self_cuda_ns\": 1e300")) ==
        "rows[0]: 'self_cuda_ns' is not a whole number of 0 or more");
  CHECK(error(replaced(kReport, "\"kind\": \"api\"", "\"kind\": \"cpu\"")) ==
        "rows[1]: 'kind' is not one of range, api, kernel, memcpy, memset, memory");
  CHECK(error(replaced(kReport, "\"totals\"", "\"tot\"")) == "no object 'totals'");
}

TEST_CASE("json baseline: told apart from sidecar files by content", "[diff][json]") {
  CHECK(looks_like_json(kReport));
  CHECK(looks_like_json("  \n{"));
  CHECK_FALSE(looks_like_json("GPROF..."));
  CHECK(looks_like_json("\xEF\xBB\xBF{"));  // a byte order mark
  CHECK(looks_like_json("[]"));             // JSON, so that its error says what is wrong with it
  CHECK_FALSE(looks_like_json(""));
  CHECK_FALSE(looks_like_json(std::string(16, '\0')));
}

TEST_CASE("json baseline: the report of a file has the rows of the file", "[diff][json]") {
  const std::string path = test::write_training_capture("json_baseline.gprof");
  const test::Run report = test::gpuprof("report --format json --limit 0 '" + path + "'");
  REQUIRE(report.status == 0);
  const JsonBaseline baseline = parse_json_baseline(report.out);
  REQUIRE(baseline.rows);
  CHECK(baseline.group_by == "name");
  CHECK(baseline.ranges == std::vector<std::string>{});
  const SidecarRun sidecar = load_sidecar_run({path}, RowOptions{});
  REQUIRE(baseline.rows->rows.size() == sidecar.rows.rows.size());
  for (const RunRow& row : sidecar.rows.rows) {
    INFO(row.key.kind << " " << row.key.name);
    bool found = false;
    for (const RunRow& other : baseline.rows->rows) {
      if (!(other.key == row.key)) continue;
      found = true;
      CHECK(other.values == row.values);
    }
    CHECK(found);
  }
  CHECK(baseline.rows->totals == sidecar.rows.totals);
}

}  // namespace
}  // namespace gprof::comparison
