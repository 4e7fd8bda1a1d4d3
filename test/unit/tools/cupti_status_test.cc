#include "tools/analysis/cupti_status.h"

#include <catch2/catch.hpp>

#include "tools/analysis/profile.h"

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
  CHECK(format_losses(losses) == "ring_full=12; CUPTI: cupti_dropped=3 cupti_no_buffer=1");
  CHECK(format_losses({{"cupti_dropped", 3}}) == "CUPTI: cupti_dropped=3");
  CHECK(format_losses({{"ring_full", 3}}) == "ring_full=3");
  CHECK(format_losses({}).empty());
  CHECK(is_cupti_loss("cupti_parse_error"));
  CHECK_FALSE(is_cupti_loss("ring_full"));
}

}  // namespace
}  // namespace gprof::analysis
