#include "tools/analysis/read/gpu_names.h"

#include <catch2/catch.hpp>

#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof::analysis {
namespace {

std::string copy(uint8_t kind, uint8_t src, uint8_t dst) {
  return gpu_row_name(test::make_copy(kind, src, dst, 8, 100, 10, 1), nullptr);
}

std::string set(uint8_t dst) {
  return gpu_row_name(test::make_memset(dst, 8, 100, 10, 1), nullptr);
}

TEST_CASE("gpu_row_name: copies as PyTorch names them", "[gpu_names]") {
  CHECK(copy(1, 1, 3) == "Memcpy HtoD (Pageable -> Device)");
  CHECK(copy(1, 2, 3) == "Memcpy HtoD (Pinned -> Device)");
  CHECK(copy(2, 3, 2) == "Memcpy DtoH (Device -> Pinned)");
  CHECK(copy(2, 3, 1) == "Memcpy DtoH (Device -> Pageable)");
  CHECK(copy(8, 3, 3) == "Memcpy DtoD (Device -> Device)");
  CHECK(copy(10, 3, 3) == "Memcpy PtoP (Device -> Device)");
  CHECK(copy(9, 2, 2) == "Memcpy HtoH (Pinned -> Pinned)");
  CHECK(copy(3, 1, 4) == "Memcpy HtoA (Pageable -> Array)");
  CHECK(copy(4, 4, 1) == "Memcpy AtoH (Array -> Pageable)");
  CHECK(copy(5, 4, 4) == "Memcpy AtoA (Array -> Array)");
  CHECK(copy(6, 4, 3) == "Memcpy AtoD (Array -> Device)");
  CHECK(copy(7, 3, 4) == "Memcpy DtoA (Device -> Array)");
  CHECK(copy(1, 5, 6) == "Memcpy HtoD (Managed -> Device Static)");
  CHECK(copy(8, 7, 5) == "Memcpy DtoD (Managed Static -> Managed)");
  CHECK(copy(0, 0, 0) == "Memcpy Unknown (Unknown -> Unknown)");
  CHECK(copy(42, 8, 200) == "Memcpy Unknown (Unknown -> Unknown)");  // newer CUPTI values
}

TEST_CASE("gpu_row_name: sets, kernels, syncs", "[gpu_names]") {
  CHECK(set(3) == "Memset (Device)");
  CHECK(set(5) == "Memset (Managed)");
  CHECK(set(2) == "Memset (Pinned)");
  CHECK(set(7) == "Memset (Managed Static)");
  CHECK(set(0) == "Memset (Unknown)");
  const std::string mangled = "_Z6squarePfi";
  CHECK(gpu_row_name(test::make_kernel(1, 100, 10, 1), &mangled) == "square(float*, int)");
  CHECK(gpu_row_name(test::make_kernel(1, 100, 10, 1), nullptr) == "<unknown kernel>");
  CHECK(gpu_row_name(test::make_sync(1, 100, 10, 1), nullptr) == "Event Synchronize");
  CHECK(gpu_row_name(test::make_sync(2, 100, 10, 1), nullptr) == "Stream Wait Event");
  CHECK(gpu_row_name(test::make_sync(3, 100, 10, 1), nullptr) == "Stream Synchronize");
  CHECK(gpu_row_name(test::make_sync(4, 100, 10, 1), nullptr) == "Context Synchronize");
  CHECK(gpu_row_name(test::make_sync(0, 100, 10, 1), nullptr) == "Synchronize");
  CHECK(gpu_kind_name(GpuKind::kMemset) == "memset");
}

TEST_CASE("sync types as the report and as kineto name them", "[gpu_names]") {
  // CUpti_ActivitySynchronizationType: 1 event, 2 stream wait event, 3 stream, 4 context.
  CHECK(sync_name(3) == "Stream Synchronize");
  CHECK(kineto_sync_name(1) == "Event Sync");
  CHECK(kineto_sync_name(2) == "Stream Wait Event");
  CHECK(kineto_sync_name(3) == "Stream Sync");
  CHECK(kineto_sync_name(4) == "Context Sync");
  CHECK(kineto_sync_name(0) == "Unknown Sync");
  CHECK(kineto_sync_name(99) == "Unknown Sync");
}

}  // namespace
}  // namespace gprof::analysis
