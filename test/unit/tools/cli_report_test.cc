// gpuprof report's views and options on a capture with NVTX ranges
// (training_fixture.h), through the real binary: what users read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "test/unit/tools/training_fixture.h"

namespace gprof {
namespace {

using namespace gprof::test;

bool contains(const std::string& text, const std::string& part) {
  INFO(part);
  return text.find(part) != std::string::npos;
}

// How many table lines of `text` have `name` in their (right-aligned) name column.
size_t rows_named(const std::string& text, const std::string& name) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, name.size() + 2, name + "  ") == 0) ++n;
  }
  return n;
}

const std::string& training() {
  static const std::string path = write_training_capture("cli_training.gprof");
  return path;
}

Run report(const std::string& args) {
  return gpuprof("report " + args + " '" + training() + "'");
}

TEST_CASE("gpuprof report: ranges, memory columns, and what is under the table", "[cli_report]") {
  const Run plain = report("--sort name");
  CHECK(plain.status == 0);
  // As torch's table: no memory columns without --profile-memory, and a line that says why.
  CHECK_FALSE(contains(plain.out, "CPU Mem"));
  CHECK(contains(plain.out,
                 "Memory: the run allocated or freed memory; --profile-memory shows the memory "
                 "columns.\n"));
  CHECK(contains(plain.out,
                 "[memory]: allocations and frees made outside any range (torch's [memory] "
                 "row).\n"));
  const Run run = report("--profile-memory --sort name");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  // With --profile-memory: the memory columns, CUDA Mem included.
  CHECK(contains(run.out,
                 "                                Name    Self CPU %      Self CPU   CPU total %  "
                 "   CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time "
                 "avg       CPU Mem  Self CPU Mem      CUDA Mem  Self CUDA Mem    # of Calls  \n"));
  CHECK(contains(
      run.out,
      "                            [memory]         0.00%       0.000us         0.00%  "
      "     0.000us       0.000us       0.000us         0.00%       0.000us       "
      "0.000us       1.00 MB       1.00 MB       4.00 MB       4.00 MB             2  \n"));
  CHECK(contains(
      run.out,
      "                            aten::mm        13.16%       7.500us        15.79%  "
      "     9.000us       3.000us      12.000us        60.00%      12.000us       "
      "4.000us           0 B           0 B           0 B           0 B             3  \n"));
  CHECK(contains(
      run.out,
      "                             forward        14.04%       8.000us        31.58%  "
      "    18.000us       9.000us       0.000us         0.00%      12.000us       "
      "6.000us           0 B           0 B       1.00 MB       1.00 MB             2  \n"));
  CHECK(contains(run.out,
                 "Self CPU time total: 57.000us\n"
                 "Self CUDA time total: 20.000us\n"
                 "Ranges: 1 unbalanced pop, 1 open at exit (closed at the last timestamp), 1 ended "
                 "on another thread\n"
                 "Window: 40.000us (first step start to last step end)\n"
                 "Steps: 2 ranges matching 'ProfilerStep*': 50000.00 steps/s\n"
                 "Step time: min 20.000us, median 20.000us, p95 20.000us, max 20.000us\n"
                 "GPU 0: busy 18.000us (45.00% of the window)\n"
                 "Synchronize: 6.000us in 2 calls (15.00% of the window)\n"));
  CHECK_FALSE(contains(run.out, "GPU times were not recorded"));
}

TEST_CASE("gpuprof report: steps and samples per step", "[cli_report]") {
  const Run run = report("--step 'forward' --samples-per-step 64 --time-unit ns");
  CHECK(run.status == 0);
  // The two forward ranges: [11000, 20000) and [31000, 40000).
  CHECK(contains(run.out,
                 "Window: 29000ns (first step start to last step end)\n"
                 "Steps: 2 ranges matching 'forward': 68965.52 steps/s, 4413793.10 samples/s (64 "
                 "per step)\n"
                 "Step time: min 9000ns, median 9000ns, p95 9000ns, max 9000ns\n"
                 "GPU 0: busy 15000ns (51.72% of the window)\n"
                 "Synchronize: 3000ns in 1 call (10.34% of the window)\n"));
  CHECK(gpuprof("report --samples-per-step 0 x.gprof").status == 2);
}

TEST_CASE("gpuprof report: the ranges, api and kernels views", "[cli_report]") {
  const Run ranges = report("--view ranges --sort name");
  CHECK(ranges.status == 0);
  for (const char* name : {"ProfilerStep#0", "ProfilerStep#1", "aten::mm", "backward",
                           "data loading", "forward", "prefetch", "[memory]"})
    CHECK(rows_named(ranges.out, name) == 1);
  CHECK(rows_named(ranges.out, "cudaLaunchKernel") == 0);
  CHECK(rows_named(ranges.out, "vector_add") == 0);
  // Shares stay those of the whole table.
  CHECK(contains(ranges.out, "aten::mm        13.16%       7.500us"));
  CHECK(contains(ranges.out, "Self CPU time total: 57.000us\nSelf CUDA time total: 20.000us\n"));

  const Run api = report("--view api");
  CHECK(api.status == 0);
  CHECK(rows_named(api.out, "cudaLaunchKernel") == 1);
  CHECK(rows_named(api.out, "forward") == 0);
  CHECK(rows_named(api.out, "[memory]") == 0);
  // The GPU time the calls issued, in columns of the api view's own.
  CHECK(contains(api.out, "CPU time avg      GPU time  GPU time avg"));
  CHECK_FALSE(contains(api.out, "Self CUDA %"));
  CHECK(contains(api.out,
                 "cudaLaunchKernel         4.39%       2.500us         4.39%       "
                 "2.500us       0.500us      16.000us       3.200us"));

  const Run kernels = report("--view kernels");
  CHECK(kernels.status == 0);
  CHECK(rows_named(kernels.out, "square(float*, int)") == 1);
  CHECK(rows_named(kernels.out, "vector_add") == 1);
  CHECK(rows_named(kernels.out, "Memcpy DtoH (Device -> Pinned)") == 0);
  // Kernels have no CPU time: no CPU columns (they were five columns of zeros), and the rows
  // sorted by CUDA total (they were in the order first seen).
  CHECK_FALSE(contains(kernels.out, "Self CPU %"));
  CHECK(contains(kernels.out, "vector_add       4.000us        20.00%"));
  CHECK(kernels.out.find("square(float*, int)") < kernels.out.find("vector_add"));
  // In the default view too, the GPU rows (no CPU time) come by CUDA total.
  const Run ops = report("");
  CHECK(ops.out.find("square(float*, int)") < ops.out.find("  vector_add  "));
}

TEST_CASE("gpuprof report --view memory", "[cli_report]") {
  const Run run = report("--view memory");
  CHECK(run.status == 0);
  CHECK(contains(run.out,
                 "                                Name          Size    # of Calls   Total Bytes"
                 "     GPU total       GPU avg     Bandwidth  \n"));
  CHECK(contains(run.out,
                 "      Memcpy DtoH (Device -> Pinned)     16-256 KB             2     128.00 KB"
                 "       2.000us       1.000us    65.54 GB/s  \n"
                 "    Memcpy HtoD (Pageable -> Device)   256 KB-4 MB             1     256.00 KB"
                 "       1.000us       1.000us   262.14 GB/s  \n"
                 "      Memcpy HtoD (Pinned -> Device)   256 KB-4 MB             1       1.00 MB"
                 "       1.000us       1.000us  1048.58 GB/s  \n"));
  CHECK(contains(run.out, "Copies and sets: 4 calls, 1.38 MB, GPU time 4.000us\n"));
  const Run sorted = report("--view memory --sort bandwidth --limit 1");
  CHECK(sorted.status == 0);
  CHECK(rows_named(sorted.out, "Memcpy HtoD (Pinned -> Device)") == 1);
  CHECK(rows_named(sorted.out, "Memcpy DtoH (Device -> Pinned)") == 0);
  CHECK(contains(sorted.out, "Copies and sets: 4 calls"));  // totals cover all rows
  const Run scoped = report("--view memory --range 'data loading'");
  CHECK(scoped.status == 0);
  CHECK(rows_named(scoped.out, "Memcpy HtoD (Pageable -> Device)") == 1);
  CHECK(contains(scoped.out, "Copies and sets: 1 call, 256.00 KB, GPU time 1.000us\n"));
}

TEST_CASE("gpuprof report --group-by adds a column after # of Calls", "[cli_report]") {
  const Run run = report("--profile-memory --view api --group-by thread --sort name");
  CHECK(run.status == 0);
  CHECK(contains(run.out, "    # of Calls            Thread  \n"));
  CHECK(contains(run.out, "0 B             2        100 (main)  \n"));
  CHECK(contains(run.out, "             1      200 (loader)  \n"));
  CHECK(rows_named(run.out, "cudaMemcpyAsync") == 2);

  const Run config = report("--view kernels --group-by launch-config");
  CHECK(contains(config.out,
                 "    # of Calls                                      Launch Config  \n"));
  CHECK(contains(config.out,
                 "             3         grid=[4096, 1, 1] block=[256, 1, 1] smem=0  \n"));

  const Run streams = report("--view kernels --group-by stream");
  CHECK(contains(streams.out, "    # of Calls  Stream  \n"));  // the title is wider than "7" + 4
  CHECK(contains(streams.out, "             3       7  \n"));
  CHECK(contains(streams.out, "             2       9  \n"));

  const std::string other = write_training_capture("cli_rank1.gprof", 43, "1");
  const Run processes =
      gpuprof("report --view ranges --group-by process '" + training() + "' '" + other + "'");
  CHECK(processes.status == 0);
  CHECK(rows_named(processes.out, "forward") == 2);
  CHECK(contains(processes.out, "             2               42  \n"));
  CHECK(contains(processes.out, "             2      43 (rank 1)  \n"));
  // Steps per process when several have some.
  CHECK(contains(processes.out, "[pid 42] Steps: 2 ranges matching 'ProfilerStep*'"));
  CHECK(contains(processes.out, "[pid 43] Steps: 2 ranges matching 'ProfilerStep*'"));
}

TEST_CASE("gpuprof report --range and --top-level-only", "[cli_report]") {
  const Run backward = report("--range backward --sort name");
  CHECK(backward.status == 0);
  CHECK(rows_named(backward.out, "backward") == 1);
  CHECK(rows_named(backward.out, "vector_add") == 1);
  CHECK(rows_named(backward.out, "forward") == 0);
  CHECK(rows_named(backward.out, "[memory]") == 0);
  CHECK(contains(backward.out, "Self CPU time total: 16.000us\nSelf CUDA time total: 6.000us\n"));
  // The lines under the table count the range's work too (18us of GPU work in all).
  CHECK(contains(backward.out, "GPU 0: busy 6.000us (15.00% of the window)\n"));
  CHECK(contains(report("--range forward").out, "GPU 0: busy 12.000us (30.00% of the window)\n"));
  CHECK(contains(report("").out, "GPU 0: busy 18.000us (45.00% of the window)\n"));

  const Run two = report("--range forward --range 'data*' --view ranges --sort name");
  CHECK(rows_named(two.out, "forward") == 1);
  CHECK(rows_named(two.out, "aten::mm") == 1);
  CHECK(rows_named(two.out, "data loading") == 1);
  CHECK(rows_named(two.out, "backward") == 0);

  // As in diff: a --range that matches nothing is a usage error (exit 2).
  const Run none = report("--range nothing");
  CHECK(none.status == 2);
  CHECK(contains(none.err, "gpuprof: error: --range nothing matches no range\n"));

  const Run top = report("--top-level-only --sort name");
  CHECK(top.status == 0);
  CHECK(rows_named(top.out, "ProfilerStep#0") == 1);
  CHECK(rows_named(top.out, "forward") == 0);
  CHECK(rows_named(top.out, "cudaLaunchKernel") == 0);
  CHECK(rows_named(top.out, "square(float*, int)") == 1);
  // The totals of the whole scope (docs/columns.md), as the plain table's: the top-level rows'
  // CPU totals hold every other row's Self CPU. Their Self CPU alone (23 us) made shares of 134%.
  CHECK(contains(top.out, "Self CPU time total: 57.000us\n"));

  const Run launches = report("--view launches --range forward");
  CHECK(launches.status == 0);
  CHECK(rows_named(launches.out, "square(float*, int)") == 1);
  CHECK(rows_named(launches.out, "vector_add") == 0);
  // As the key-averages views: a --range that matches nothing is an error, not an empty table.
  for (const char* view : {"launches", "memory"}) {
    const Run typo = report(std::string("--view ") + view + " --range forwrd");
    CHECK(typo.status == 2);
    CHECK(typo.out.empty());
    CHECK(contains(typo.err, "gpuprof: error: --range forwrd matches no range\n"));
  }
}

TEST_CASE("gpuprof report: memory columns on demand, usage errors", "[cli_report]") {
  const std::string plain = write_subscribed_capture("cli_plain.gprof");
  // --profile-memory on a file without allocations: the CPU Mem columns.
  const Run memory = gpuprof("report --profile-memory --view kernels '" + plain + "'");
  CHECK(contains(memory.out, "CPU Mem  Self CPU Mem    # of Calls  \n"));

  for (const char* args : {"--view memory --group-by thread", "--view launches --top-level-only",
                           "--group-by shape", "--view memory --sort self_cpu"}) {
    INFO(args);
    const Run run = report(args);
    CHECK(run.status == 2);
    CHECK(run.out.empty());
  }
  CHECK(contains(report("--view memory --group-by thread").err,
                 "gpuprof: error: --group-by applies to the ops, ranges, api and kernels views, "
                 "not memory\n"));
  CHECK(contains(report("--group-by shape").err,
                 "unknown group-by key 'shape'; valid group-by keys: name, launch-config, stream, "
                 "device, thread, process"));
  CHECK(contains(report("--view memory --sort self_cpu").err,
                 "gpuprof: error: --sort: 'self_cpu' is not a column of the memory view; keys: "
                 "name, count, bytes, gpu_total, gpu_avg, bandwidth\n"));
}

TEST_CASE("gpuprof info and dump: ranges", "[cli_report]") {
  const Run info = gpuprof("info '" + training() + "'");
  CHECK(info.status == 0);
  CHECK(contains(info.out,
                 "Ranges:           10 push/pop, 1 start/end, 1 mark; 1 unbalanced pop, 1 open at "
                 "exit (closed at the last timestamp), 1 ended on another thread\n"
                 "Window:           40.000us (first step start to last step end)\n"
                 "Steps:            2 ranges matching 'ProfilerStep*': 50000.00 steps/s\n"
                 "Step time:        min 20.000us, median 20.000us, p95 20.000us, max 20.000us\n"
                 "GPU 0:            busy 18.000us (45.00% of the window)\n"
                 "Synchronize:      6.000us in 2 calls (15.00% of the window)\n"
                 "Strings:          2 kernel names, 0 thread names, 12 NVTX strings, 0 other\n"));

  const Run dump = gpuprof("dump --records ranges '" + training() + "'");
  CHECK(dump.status == 0);
  std::vector<nlohmann::json> lines;
  std::istringstream in(dump.out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 12);
  CHECK(lines[0]["type"] == "range");
  CHECK(lines[0]["kind"] == "start_end");
  CHECK(lines[0]["name"] == "data loading");
  CHECK(lines[0]["tid"] == 200);
  CHECK(lines[0]["end_tid"] == 100);
  CHECK(lines[1]["name"] == "prefetch");
  CHECK(lines[1]["open_at_exit"] == true);
  CHECK(lines[1]["end_ns"] == 60000);
  CHECK(lines[4]["name"] == "aten::mm");
  CHECK(lines[11]["kind"] == "mark");
  CHECK(lines[11]["name"] == "checkpoint");
  const Run all = gpuprof("dump --records all '" + training() + "'");
  CHECK(test::lines(all.out) == 15 + 12 + 10);
}

// The JSON document is written row by row (report_json.cc): the same bytes
// as nlohmann's dump of the whole document, with rows and without (a
// capture without NVTX ranges has none in the ranges view).
TEST_CASE("gpuprof report --format json: rows written one by one, as the whole document",
          "[cli_report]") {
  static const std::string plain = write_subscribed_capture("cli_json_plain.gprof");
  const std::vector<std::pair<std::string, size_t>> runs = {
      {"--format json --limit 0 '" + training() + "'", 2},
      {"--format json --group-by seq --profile-memory '" + training() + "'", 2},
      {"--format json --view ranges '" + plain + "'", 0},
  };
  for (const auto& [args, least_rows] : runs) {
    INFO(args);
    const Run run = gpuprof("report " + args);
    REQUIRE(run.status == 0);
    const auto doc = nlohmann::ordered_json::parse(run.out);
    CHECK(doc.dump(2) + "\n" == run.out);
    if (least_rows == 0)
      CHECK(doc["rows"].empty());
    else
      CHECK(doc["rows"].size() >= least_rows);
  }
}

}  // namespace
}  // namespace gprof
