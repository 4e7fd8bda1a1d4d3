// Runs the real gpuprof binary (path in $GPUPROF) on hand-built files.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "formats/framing.h"
#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/cli_run.h"

namespace gprof {
namespace {

using test::gpuprof;
using test::lines;
using test::make_call;
using test::Run;
using test::SidecarBuilder;

std::string good_file() {
  ApiRecord k = make_call(ApiId::cudaLaunchKernelInternal, 1000, 2000);
  k.kernel = 1;
  ApiRecord oom = make_call(ApiId::cudaMalloc, 5000, 3000);
  oom.result = 2;
  ApiRecord oom2 = oom;
  oom2.start_ns = 9000;
  oom2.end_ns = 9500;
  pb::Footer footer;
  footer.set_api_records(5);
  pb::Loss* loss = footer.add_losses();
  loss->set_reason("ring_full");
  loss->set_count(12);
  pb::FileHeader header = test::test_header();
  pb::ConfigEntry* entry = header.add_config();
  entry->set_key("GPROF_BUFFER_MB");
  entry->set_value("32");
  SidecarBuilder file;
  file.header(header)
      .strings({{1, "_Z6squarePfi"}})
      .calls(77, {k, oom, oom2, make_call(ApiId::cudaDeviceSynchronize, 20'000, 1'000'000)})
      .calls(78, {make_call(ApiId::cudaFree, 100, 10)})
      .footer(footer);
  return test::write_temp_file("good.gprof", file.bytes());
}

TEST_CASE("gpuprof report: the table, and losses under it", "[cli]") {
  const Run run = gpuprof("report '" + good_file() + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  CHECK(run.out.find("                   Name    Self CPU %      Self CPU   CPU total %     "
                     "CPU total  CPU time avg    # of Calls  \n") != std::string::npos);
  CHECK(run.out.find("  cudaDeviceSynchronize        99.45%       1.000ms        99.45%       "
                     "1.000ms       1.000ms             1  \n") != std::string::npos);
  CHECK(run.out.find("    square(float*, int)         0.00%       0.000us") != std::string::npos);
  CHECK(run.out.find("Self CPU time total: 1.006ms\n"
                     "GPU times were not recorded: CUPTI was not set up (no "
                     "CUDA_INJECTION64_PATH initialization)\n"
                     "Lost records: ring_full=12\n") != std::string::npos);
}

TEST_CASE("gpuprof report: options", "[cli]") {
  const std::string file = good_file();
  const Run limited = gpuprof("report --sort 'Self CPU' --limit 1 --time-unit us '" + file + "'");
  CHECK(limited.status == 0);
  CHECK(lines(limited.out) == 8);  // sep, header, sep, 1 row, sep, total, note, losses
  CHECK(limited.out.find("cudaDeviceSynchronize") != std::string::npos);
  CHECK(limited.out.find("1000.000us") != std::string::npos);
  const Run narrow = gpuprof("report --name-width 10 --sort count '" + file + "'");
  CHECK(narrow.status == 0);
  // A name that fits is whole; a longer one is cut to the width and marked.
  CHECK(narrow.out.find("\ncudaMalloc  ") != std::string::npos);
  CHECK(narrow.out.find("cudaDev...") != std::string::npos);
  // Two files aggregate; a file named twice is read once.
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string copy = test::write_temp_file("copy.gprof", bytes);
  const Run two = gpuprof("report --sort name '" + file + "' '" + copy + "'");
  CHECK(two.out.find("     2.000ms       1.000ms             2  \n") != std::string::npos);
  const Run twice = gpuprof("report --sort name '" + file + "' '" + file + "'");
  CHECK(twice.out.find("     1.000ms       1.000ms             1  \n") != std::string::npos);
}

TEST_CASE("gpuprof report: unreadable files", "[cli]") {
  SECTION("missing") {
    const Run run = gpuprof("report /nonexistent/run.gprof");
    CHECK(run.status == 1);
    CHECK(run.out.empty());
    CHECK(run.err == "gpuprof: error: /nonexistent/run.gprof: No such file or directory\n");
  }
  SECTION("newer") {
    SidecarBuilder newer(kFormatVersion + 6);
    const std::string path = test::write_temp_file("newer.gprof", newer.bytes());
    const Run run = gpuprof("report '" + path + "'");
    CHECK(run.status == 1);
    CHECK(run.err == "gpuprof: error: " + path + ": format version " +
                         std::to_string(kFormatVersion + 6) +
                         " is newer than this gpuprof supports (" + std::to_string(kFormatVersion) +
                         "); upgrade gpuprof\n");
  }
  SECTION("not a sidecar file") {
    const std::string path = test::write_temp_file("text.gprof", "just some text\n");
    const Run run = gpuprof("report '" + path + "'");
    CHECK(run.status == 1);
    CHECK(lines(run.err) == 1);
    CHECK(run.err.find("not a gprof sidecar file") != std::string::npos);
  }
}

TEST_CASE("gpuprof report: a damaged file warns and still reports", "[cli]") {
  SidecarBuilder file;
  file.header(test::test_header())
      .calls(1, {make_call(ApiId::cudaMalloc, 100, 10)})
      .calls(1, {make_call(ApiId::cudaFree, 200, 10)});
  const std::string cut = file.bytes().substr(0, file.bytes().size() - 4);
  const std::string path = test::write_temp_file("cut.gprof", cut);
  const Run run = gpuprof("report '" + path + "'");
  CHECK(run.status == 0);
  CHECK(lines(run.err) == 1);
  CHECK(run.err.find("gpuprof: warning: " + path + ": ") == 0);
  // Written moments ago by a pid of another host: it may still be growing.
  CHECK(run.err.find(": possibly still being written (modified in the last 10 s, by pid ") !=
        std::string::npos);
  CHECK(run.err.find("incomplete (no footer, ") != std::string::npos);
  CHECK(run.out.find("cudaMalloc") != std::string::npos);
  CHECK(run.out.find("cudaFree") == std::string::npos);
}

TEST_CASE("gpuprof: usage errors exit with 2, help with 0", "[cli]") {
  CHECK(gpuprof("").status == 2);
  CHECK(gpuprof("report").status == 2);
  CHECK(gpuprof("report --sort fastest x.gprof").status == 2);
  CHECK(gpuprof("report --time-unit min x.gprof").status == 2);
  CHECK(gpuprof("report --bogus x.gprof").status == 2);
  CHECK(gpuprof("frobnicate").status == 2);
  CHECK(gpuprof("dump --records kernels x.gprof").status == 2);
  for (const char* help : {"--help", "report --help", "info --help", "dump --help"}) {
    const Run run = gpuprof(help);
    CHECK(run.status == 0);
    CHECK(run.out.find("Usage:") != std::string::npos);
  }
}

TEST_CASE("gpuprof info", "[cli]") {
  const std::string path = good_file();
  const Run run = gpuprof("info '" + path + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  for (const char* want : {
           "Integrity:        complete\n",
           "Format version:   1\n",
           "Process:          pid 42, ppid 1\n",
           "Host:             testhost\n",
           "Command line:     ./train --epochs 3\n",
           "Start time:       2024-05-01T12:34:56.123456Z\n",
           "CUDA runtime:     13.0 (13000)\n",
           "CUDA driver:      12.8 (12080)\n",
           "Config:           GPROF_BUFFER_MB=32\n",
           "Records:          5 API calls on 2 threads, 1 kernel launch\n",
           "GPU records:      none\n",
           "CUPTI:            no status recorded; CUPTI was not set up (no "
           "CUDA_INJECTION64_PATH initialization)\n",
           "Losses:           ring_full=12\n",
           "Failed calls:\n  cudaMalloc           2  2 cudaErrorMemoryAllocation\n",
       }) {
    INFO(want);
    CHECK(run.out.find(want) != std::string::npos);
  }
  const Run missing = gpuprof("info '" + path + "' /nonexistent.gprof");
  CHECK(missing.status == 1);
  CHECK(missing.err == "gpuprof: error: /nonexistent.gprof: No such file or directory\n");
  CHECK(missing.out.find("testhost") != std::string::npos);
}

}  // namespace
}  // namespace gprof
