#include <catch2/catch.hpp>

#include "collector/gpu/cupti_library.h"

using namespace gprof;

TEST_CASE("CUPTI 13 and CUPTI 12 are read; other versions are not") {
  // cuptiGetVersion: 130001 for CUDA 13.0; 18 (12.0, 12.1) to 28 (12.9) for CUPTI 12, whose
  // records match CUDA 13's layouts for every field gprof reads.
  CHECK(cupti_version_supported(130001, "/usr/local/cuda/lib64/libcupti.so.13"));
  CHECK(cupti_version_supported(28, "/site-packages/nvidia/cuda_cupti/lib/libcupti.so.12"));
  CHECK(cupti_version_supported(18, "libcupti.so.12"));
  // CUDA 11.8's CUPTI also says 18: the library's name tells.
  CHECK_FALSE(cupti_version_supported(18, "/usr/local/cuda-11.8/lib64/libcupti.so.11.8"));
  CHECK_FALSE(cupti_version_supported(17, "libcupti.so.12"));
  CHECK_FALSE(cupti_version_supported(120000, "libcupti.so.13"));  // not a CUPTI 12 number
  CHECK_FALSE(cupti_version_supported(140000, "libcupti.so.14"));
  CHECK_FALSE(cupti_version_supported(28, nullptr));
}
