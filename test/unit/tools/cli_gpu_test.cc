// gpuprof on files with GPU records: the ops and launches views, info's
// CUPTI section, dump --records.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof {
namespace {

using namespace gprof::test;

bool contains(const std::string& text, const std::string& part) {
  INFO(part);
  return text.find(part) != std::string::npos;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST_CASE("gpuprof report: GPU columns and totals from GPU records", "[cli_gpu]") {
  const Run run = gpuprof("report --sort self_cuda_time_total '" +
                          write_subscribed_capture("report_gpu.gprof") + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  CHECK(
      contains(run.out,
               "                                Name    Self CPU %      Self CPU   CPU total %     "
               "CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg"
               "    # of Calls  \n"));
  // Rows in Self CUDA order: the kernels first, not the API calls that launched them (as in
  // torch, an API row carries no CUDA time).
  CHECK(contains(
      run.out,
      "                 square(float*, int)         0.00%       0.000us         0.00%       "
      "0.000us       0.000us      10.100us        66.89%      10.100us       3.367us"
      "             3  \n"));
  CHECK(contains(
      run.out,
      "                    cudaLaunchKernel         4.24%       0.600us         4.24%       "
      "0.600us       0.200us       0.000us         0.00%       0.000us       0.000us"
      "             3  \n"));
  CHECK(run.out.find("square(float*, int)") < run.out.find("cudaLaunchKernel"));
  CHECK(contains(
      run.out,
      "    Memcpy HtoD (Pageable -> Device)         0.00%       0.000us         0.00%       "
      "0.000us       0.000us       2.000us        13.25%       2.000us       2.000us"
      "             1  \n"));
  CHECK(contains(run.out, "Self CPU time total: 14.150us\nSelf CUDA time total: 15.100us\n"));
  // No steps: utilization over the first to the last record, [1000, 30100).
  CHECK(contains(run.out,
                 "Self CUDA time total: 15.100us\n"
                 "Window: 29.100us (first to last record, start-up included; step ranges narrow "
                 "it: --step NAME)\n"
                 "GPU 0: busy 15.100us (51.89% of the window; "));
  CHECK(contains(run.out, "Synchronize: 10.000us in 1 call (34.36% of the window)\n"));
  CHECK_FALSE(contains(run.out, "GPU times were not recorded"));
  CHECK_FALSE(contains(run.out, "Stream Synchronize"));
}

TEST_CASE("gpuprof report: hints where a torch.profiler user expects rows", "[cli_gpu]") {
  // A Python run without NVTX ranges: no op rows, and the report says how to get them; an empty
  // Input Shapes column says why. A C++ program's run gets neither (no PyTorch there).
  pb::FileHeader header = test_header();
  header.set_exe("/opt/venv/bin/python3.12");
  SidecarBuilder file;
  file.header(header)
      .strings({{1, "_Z6squarePfi"}})
      .calls(1, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 0)});
  const std::string python = write_temp_file("python_no_ranges.gprof", file.bytes());
  const Run run = gpuprof("report --group-by input-shape '" + python + "'");
  CHECK(run.status == 0);
  CHECK(contains(run.out,
                 "Ranges: none recorded, so no op rows: PyTorch's ops are rows under "
                 "torch.autograd.profiler.emit_nvtx()"));
  CHECK(contains(run.out,
                 "Input Shapes: no range carried sizes; PyTorch writes them with "
                 "emit_nvtx(record_shapes=True).\n"));
  const Run cpp = gpuprof("report '" + write_subscribed_capture("cpp_no_ranges.gprof") + "'");
  CHECK_FALSE(contains(cpp.out, "Ranges: none recorded"));
  CHECK_FALSE(contains(cpp.out, "Input Shapes"));
}

TEST_CASE("gpuprof report: a CPU-only file says why GPU times are missing", "[cli_gpu]") {
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::CPU_ONLY);
  status.set_reason("cuptiSubscribe failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  SidecarBuilder file;
  file.header(test_header())
      .cupti(status)
      .strings({{1, "_Z6squarePfi"}})
      .calls(1, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 0),
                 make_launch(ApiId::cudaLaunchKernel, 2000, 300, 1, 0)});
  const std::string cpu_only = write_temp_file("cpu_only_cli.gprof", file.bytes());
  const Run run = gpuprof("report '" + cpu_only + "'");
  CHECK(run.status == 0);
  CHECK(contains(run.out,
                 "  square(float*, int)         0.00%       0.000us         0.00%       "
                 "0.000us       0.000us             2  \n"));
  CHECK_FALSE(contains(run.out, "Self CUDA"));
  CHECK(contains(run.out,
                 "Self CPU time total: 0.400us\nGPU times were not recorded: "
                 "cuptiSubscribe failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES\n"));
  // With several files, the note names the file.
  const std::string gpu = write_subscribed_capture("with_gpu_cli.gprof");
  const Run both = gpuprof("report '" + cpu_only + "' '" + gpu + "'");
  CHECK(both.status == 0);
  CHECK(contains(both.out, "GPU times were not recorded in " + cpu_only + ": cuptiSubscribe"));
  CHECK_FALSE(contains(both.out, "recorded in " + gpu));
}

TEST_CASE("gpuprof report --view launches", "[cli_gpu]") {
  const std::string path = write_subscribed_capture("launches_cli.gprof");
  const Run run = gpuprof("report --view launches --sort 'API max' '" + path + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  // Sorted by API max: the DtoH copy (3000), the HtoD copy (500), square
  // (API 200, 300; queue 1500-1200 = 300, 5500-2300 = 3200; GPU 4000, 6000).
  CHECK(contains(run.out,
                 "                                Name    # of Calls       API avg    API median"
                 "       API min       API max     Queue avg  Queue median     Queue min"
                 "     Queue max       GPU avg    GPU median       GPU min       GPU max  \n"));
  CHECK(contains(
      run.out,
      "      Memcpy DtoH (Device -> Pinned)             1       3.000us       3.000us"
      "       3.000us       3.000us      -2.500us      -2.500us      -2.500us      -2.500us"
      "       1.500us       1.500us       1.500us       1.500us  \n"
      "    Memcpy HtoD (Pageable -> Device)             1       0.500us"));
  CHECK(contains(
      run.out,
      "2.000us  \n"  // the HtoD copy's GPU max
      "                 square(float*, int)             2       0.250us       0.250us"
      "       0.200us       0.300us       1.750us       1.750us       0.300us       3.200us"
      "       5.000us       5.000us       4.000us       6.000us  \n"));
  // Five keys issued work: square, vector_add, the two copies, the set; the
  // sync and the unpaired kernel make no row.
  // Rows, the line that explains the negative queue times (the DtoH copy's),
  // and the note that counts the unpaired kernel.
  CHECK(lines(run.out) == 3 + 5 + 1 + 1 + 1);
  CHECK(contains(run.out, "Queue time < 0: the GPU started the work before the call returned"));
  CHECK(contains(run.out,
                 "GPU records without their call: 1 unpaired (no recorded call issued "
                 "them)\n"));
  CHECK_FALSE(contains(run.out, "cudaStreamSynchronize"));

  const Run limited = gpuprof("report --view launches --limit 1 --time-unit ns '" + path + "'");
  CHECK(limited.status == 0);
  CHECK(lines(limited.out) == 3 + 1 + 1 + 1 + 1);
  CHECK(contains(limited.out, "square(float*, int)             2         250ns"));  // GPU avg first
}

TEST_CASE("gpuprof report: views and sort keys are checked", "[cli_gpu]") {
  const std::string path = write_subscribed_capture("views.gprof");
  const Run bad_view = gpuprof("report --view kernel '" + path + "'");
  CHECK(bad_view.status == 2);
  CHECK(
      contains(bad_view.err,
               "unknown view 'kernel'; valid views: ops, ranges, api, kernels, memory, launches"));
  const Run wrong_sort =
      gpuprof("report --view launches --sort self_cpu_time_total '" + path + "'");
  CHECK(wrong_sort.status == 2);
  CHECK(contains(wrong_sort.err,
                 "gpuprof: error: --sort: 'self_cpu_time_total' is not a column "
                 "of the launches view; keys: api_avg, api_median,"));
  CHECK(wrong_sort.out.empty());
  const Run ops_sort = gpuprof("report --sort queue_avg '" + path + "'");
  CHECK(ops_sort.status == 2);
  CHECK(contains(ops_sort.err, "is not a column of the ops view"));
  for (const char* key : {"self_cuda_time_total", "cuda_time_total", "cuda_time", "'Self CUDA'",
                          "'CUDA total'", "'CUDA time avg'"}) {
    INFO(key);
    CHECK(gpuprof(std::string("report --sort ") + key + " '" + path + "'").status == 0);
  }
}

TEST_CASE("gpuprof info: the CUPTI section", "[cli_gpu]") {
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  status.set_version(130001);
  status.set_library("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  status.set_injection("/opt/gprof/libgprof.so");
  status.set_timestamps_aligned(false);
  status.set_clock_offset_ns(-1500);
  status.set_offset_uncertainty_ns(250);
  status.add_activity_kinds("KERNEL");
  status.add_activity_kinds("MEMCPY");
  status.add_activity_kinds("MEMSET");
  status.set_buffer_bytes(8 << 20);
  status.set_buffer_count(8);
  pb::Footer footer;
  footer.set_api_records(1);
  footer.set_gpu_records(4);
  for (const auto& [reason, count] : std::vector<std::pair<std::string, uint64_t>>{
           {"cupti_dropped", 3}, {"ring_full", 2}, {"cupti_no_buffer", 4}}) {
    pb::Loss* loss = footer.add_losses();
    loss->set_reason(reason);
    loss->set_count(count);
  }
  SidecarBuilder file;
  file.header(test_header())
      .cupti(status)
      .strings({{1, "_Z6squarePfi"}})
      .calls(1, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 1)})
      .gpu({make_kernel(1, 1500, 400, 1), make_kernel(1, 0, 0, 2),
            make_copy(kCopyHtoD, kMemPinned, kMemDevice, 64, 3000, 10, 77),
            make_sync(kSyncStream, 4000, 10, 78)})
      .footer(footer);
  const Run run = gpuprof("info '" + write_temp_file("info_cupti.gprof", file.bytes()) + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  CHECK(contains(run.out,
                 "GPU records:      3 (1 kernel, 1 copy, 0 sets, 1 sync); 2 unpaired; 1 without a "
                 "timestamp skipped\n"));
  CHECK(contains(run.out,
                 "CUPTI:\n"
                 "  State:          SUBSCRIBED (pairing by CUPTI correlation id)\n"
                 "  Version:        13.0.1 (130001)\n"
                 "  Library:        /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13\n"
                 "  Injection:      /opt/gprof/libgprof.so\n"
                 "  Timestamps:     not aligned; offset -1.500us \u00b1 0.250us applied\n"
                 "  Activity kinds: KERNEL, MEMCPY, MEMSET\n"
                 "  Buffer pool:    8 \u00d7 8388608 bytes (64.00 MB)\n"
                 "Losses:           ring_full=2; CUPTI: cupti_dropped=3\n"
                 "Also counted:     cupti_no_buffer=4 (no record lost)\n"));
  CHECK_FALSE(contains(run.out, "Reason:"));
}

TEST_CASE("gpuprof info: external correlation state", "[cli_gpu]") {
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  status.set_timestamps_aligned(true);
  status.set_reason("another CUPTI subscriber is active (nsys?)");
  SidecarBuilder file;
  file.header(test_header())
      .cupti(status)
      .calls(1, {make_correlated(ApiId::cudaMemcpyAsync, 1000, 100, 1001)})
      .gpu({make_copy(kCopyHtoD, kMemPinned, kMemDevice, 64, 3000, 10, 7)})
      .external({{7, 1001}});
  const Run run = gpuprof("info '" + write_temp_file("info_ext.gprof", file.bytes()) + "'");
  CHECK(run.status == 0);
  CHECK(
      contains(run.out, "GPU records:      1 (0 kernels, 1 copy, 0 sets, 0 syncs); 0 unpaired\n"));
  CHECK(contains(run.out,
                 "  State:          EXTERNAL_CORRELATION (another tool holds the subscriber; "
                 "pairing by pushed external ids)\n"
                 "  Injection:      (unset)\n"));
  CHECK(contains(run.out,
                 "  Timestamps:     aligned (on the recording clock)\n"
                 "  Reason:         another CUPTI subscriber is active (nsys?)\n"
                 "  Activity kinds: none\n"
                 "  External ids:   1\n"));
  CHECK(contains(run.out, "Losses:           unknown (no footer)\n"));
}

TEST_CASE("gpuprof dump --records", "[cli_gpu]") {
  const std::string path = write_subscribed_capture("dump.gprof");
  const Run api = gpuprof("dump '" + path + "'");
  CHECK(api.status == 0);
  const auto api_lines = json_lines(api.out);
  REQUIRE(api_lines.size() == 7);
  for (const auto& j : api_lines) CHECK(j["type"] == "api");
  CHECK(api_lines[0]["name"] == "cudaLaunchKernel");
  CHECK(api_lines[0]["correlation"] == 1);

  const Run gpu = gpuprof("dump --records gpu '" + path + "'");
  CHECK(gpu.status == 0);
  const auto gpu_lines = json_lines(gpu.out);
  REQUIRE(gpu_lines.size() == 8);
  for (const auto& j : gpu_lines) CHECK(j["type"] == "gpu");
  const nlohmann::json& kernel = gpu_lines[0];
  CHECK(kernel["kind"] == "kernel");
  CHECK(kernel["name"] == "square(float*, int)");
  CHECK(kernel["kernel"] == "_Z6squarePfi");
  CHECK(kernel["start_ns"] == 1500);
  CHECK(kernel["end_ns"] == 5500);
  CHECK(kernel["correlation"] == 1);
  CHECK(kernel["api_correlation"] == 1);
  CHECK(kernel["grid"] == nlohmann::json({4096, 1, 1}));
  CHECK(kernel["block"] == nlohmann::json({256, 1, 1}));
  CHECK(kernel["registers"] == 32);
  CHECK(kernel["stream"] == 7);
  for (const char* field : {"file", "bytes", "graph", "graph_node", "device", "shared_mem",
                            "copy_kind", "src_kind", "dst_kind", "peer_device", "detail"}) {
    INFO(field);
    CHECK(kernel.contains(field));
  }
  const nlohmann::json& copy = gpu_lines[3];
  CHECK(copy["kind"] == "memcpy");
  CHECK(copy["name"] == "Memcpy HtoD (Pageable -> Device)");
  CHECK(copy["kernel"].is_null());
  CHECK(copy["bytes"] == 4096);
  CHECK(copy["copy_kind"] == 1);
  CHECK(copy["src_kind"] == 1);
  CHECK(copy["dst_kind"] == 3);
  const nlohmann::json& set = gpu_lines[4];
  CHECK(set["name"] == "Memset (Device)");
  CHECK(set["detail"] == 0xff);
  CHECK(gpu_lines[5]["kind"] == "sync");
  CHECK(gpu_lines[5]["name"] == "Stream Synchronize");
  CHECK(gpu_lines[5]["detail"] == 3);
  CHECK(gpu_lines[7]["correlation"] == 99);
  CHECK_FALSE(gpu_lines[7].contains("api_correlation"));  // unpaired

  const Run all = gpuprof("dump --records all '" + path + "'");
  const auto all_lines = json_lines(all.out);
  REQUIRE(all_lines.size() == 15);
  CHECK(all_lines[6]["type"] == "api");  // a file's GPU records follow its API records
  CHECK(all_lines[7]["type"] == "gpu");
}

}  // namespace
}  // namespace gprof
