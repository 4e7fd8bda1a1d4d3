#include "tools/analysis/render/cupti_status.h"

#include <catch2/catch.hpp>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {
namespace {

TEST_CASE("format_cupti_version: raw and dotted", "[cupti_status]") {
  CHECK(format_cupti_version(130001) == "13.0.1 (130001)");
  CHECK(format_cupti_version(120803) == "12.8.3 (120803)");
  CHECK(format_cupti_version(18) == "18");
  CHECK(format_cupti_version(0) == "unknown");
}

TEST_CASE("describe_cupti_state", "[cupti_status]") {
  CHECK(describe_cupti_state(pb::CuptiStatus::SUBSCRIBED) ==
        "SUBSCRIBED (pairing by CUPTI correlation id)");
  CHECK(describe_cupti_state(pb::CuptiStatus::CPU_ONLY) ==
        "CPU_ONLY (CUPTI unusable; CPU-side recording only)");
}

TEST_CASE("missing_gpu_times_reason", "[cupti_status]") {
  const std::string not_set_up = "CUPTI was not set up (no CUDA_INJECTION64_PATH initialization)";
  CHECK(missing_gpu_times_reason(std::nullopt) == not_set_up);
  // No footer: the status may have been in the part that is missing.
  CHECK(missing_gpu_times_reason(std::nullopt, false) ==
        "unknown: the file ends before its CUPTI status (the process was killed, or the file was "
        "cut)");
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::NOT_STARTED);
  CHECK(missing_gpu_times_reason(status) == not_set_up);
  status.set_state(pb::CuptiStatus::CPU_ONLY);
  CHECK(missing_gpu_times_reason(status) == "CUPTI could not be used");
  status.set_reason("cuptiSubscribe: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  CHECK(missing_gpu_times_reason(status) == "cuptiSubscribe: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  status.clear_reason();
  CHECK(missing_gpu_times_reason(status) == "CUPTI (SUBSCRIBED) delivered no GPU activity records");
}

TEST_CASE("losses: CUPTI's are labelled", "[cupti_status]") {
  const LossList losses = {{"cupti_dropped", 3}, {"ring_full", 12}, {"cupti_no_buffer", 1}};
  const auto [own, cupti] = split_losses(losses);
  CHECK(format_loss_list(own) == "ring_full=12");
  CHECK(format_loss_list(cupti) == "cupti_dropped=3 cupti_no_buffer=1");
  // A refused buffer request loses no record itself: CUPTI's dropped ones are cupti_dropped.
  CHECK(format_losses(losses) == "ring_full=12; CUPTI: cupti_dropped=3");
  CHECK(format_loss_events(losses) == "cupti_no_buffer=1");
  CHECK(format_losses({{"cupti_no_buffer", 2}, {"kernel_table_full", 1}}).empty());
  CHECK(format_loss_events({{"kernel_table_full", 1}, {"future_reason", 4}}) ==
        "kernel_table_full=1");
  CHECK(format_losses({{"future_reason", 4}}) == "future_reason=4");
  CHECK(format_losses({{"cupti_dropped", 3}}) == "CUPTI: cupti_dropped=3");
  CHECK(format_losses({{"ring_full", 3}}) == "ring_full=3");
  CHECK(format_losses({}).empty());
  CHECK(is_cupti_loss("cupti_parse_error"));
  CHECK_FALSE(is_cupti_loss("ring_full"));
}

// Six launches 1000 ns apart; another tool held CUPTI over [2500, 4500): the
// launches at 3000 and 4000 have no kernel, the others do.
TEST_CASE("cupti gaps: GPU records around the interval and launches lost in it", "[cupti_status]") {
  using namespace gprof::test;
  std::vector<ApiRecord> calls;
  std::vector<GpuRecord> kernels;
  for (uint64_t i = 1; i <= 6; ++i) {
    calls.push_back(make_correlated(ApiId::cudaLaunchKernel, i * 1000, 100, i));
    if (i != 3 && i != 4) kernels.push_back(make_kernel(1, i * 1000 + 200, 300, i));
  }
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  pb::CuptiGap* gap = status.add_gaps();
  gap->set_start_ns(2500);
  gap->set_end_ns(4500);
  gap->set_reason("cuptiActivityRegisterCallbacks by kineto; resumed");
  gap->set_gpu_records_before(2);
  gap->set_gpu_records_at_end(2);
  pb::CuptiGap* open = status.add_gaps();  // never resumed: to the end
  open->set_start_ns(5500);
  open->set_reason("cuptiFinalize by kineto; not resumed");
  SidecarBuilder file;
  file.header(test_header())
      .strings({{1, "_Z6squarePfi"}})
      .calls(7, calls)
      .gpu(kernels)
      .cupti(status);
  ProfileVisitor nothing;
  const std::vector<FileInfo> files =
      load_files({write_temp_file("gaps.gprof", file.bytes())}, nothing);
  REQUIRE(files.size() == 1);
  const FileInfo& info = files[0];
  REQUIRE(info.gaps.size() == 2);
  CHECK(info.gaps[0].gpu_before == 2);
  CHECK(info.gaps[0].gpu_during == 0);
  CHECK(info.gaps[0].gpu_after == 2);
  CHECK(info.gaps[0].launches == 2);
  CHECK(info.gaps[0].launches_without_gpu == 2);
  // The open one lasts to the end: the launch at 6000 and its kernel are in it.
  CHECK(info.gaps[1].gpu_before == 3);
  CHECK(info.gaps[1].gpu_during == 1);
  CHECK(info.gaps[1].gpu_after == 0);
  CHECK(info.gaps[1].launches == 1);
  CHECK(info.gaps[1].launches_without_gpu == 0);
  const std::vector<std::string> lines = cupti_gap_lines(info);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "no GPU records from 1.500us to 3.500us (2.000us): cuptiActivityRegisterCallbacks by "
        "kineto; resumed; 2 launches in it, 2 without GPU records; GPU records: 2 before, 0 "
        "during, 2 after");
  CHECK(lines[1].starts_with("no GPU records from 4.500us to the end: cuptiFinalize by kineto"));
}

}  // namespace
}  // namespace gprof::analysis
