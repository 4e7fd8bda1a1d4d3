// Hand-built CUPTI records in, GpuRecords out (the approach of kineto's tests).
#include "collector/gpu/activity_parser.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace gprof;

namespace {

template <typename T>
T zeroed() {
  T r;
  std::memset(&r, 0, sizeof r);
  return r;
}

const CUpti_Activity* as_activity(const void* r) {
  return static_cast<const CUpti_Activity*>(r);
}

}  // namespace

TEST_CASE("parser: a concurrent kernel record keeps its launch shape and name", "[cupti]") {
  auto k = zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 5'000'000'001'000;
  k.end = 5'000'000'021'000;
  k.deviceId = 1;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 4096;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.registersPerThread = 40;
  k.graphId = 3;
  k.graphNodeId = 99;
  k.name = "_Z10vector_addPKfS0_Pfi";

  const ParsedActivity p = parse_activity(as_activity(&k), 5'000'000'000'000);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.kind == GpuKind::kKernel);
  CHECK(p.gpu.start_ns == 1000);  // the offset is subtracted
  CHECK(p.gpu.end_ns == 21000);
  CHECK(p.gpu.correlation == 77);
  CHECK(p.gpu.device == 1);
  CHECK(p.gpu.stream == 13);
  CHECK(p.gpu.grid.x == 4096);
  CHECK(p.gpu.grid.y == 2);
  CHECK(p.gpu.block.x == 256);
  CHECK(p.gpu.shared_mem == 3072);
  CHECK(p.gpu.registers == 40);
  CHECK(p.gpu.graph == 3);
  CHECK(p.gpu.graph_node == 99);
  CHECK(std::strcmp(p.kernel_name, "_Z10vector_addPKfS0_Pfi") == 0);
}

TEST_CASE("parser: copies, peer copies and sets", "[cupti]") {
  auto c = zeroed<CUpti_ActivityMemcpy6>();
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.bytes = 4 << 20;
  c.start = 100;
  c.end = 400;
  c.correlationId = 5;
  c.streamId = 7;
  ParsedActivity p = parse_activity(as_activity(&c), 0);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.kind == GpuKind::kMemcpy);
  CHECK(p.gpu.bytes == (4u << 20));
  CHECK(p.gpu.copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  CHECK(p.gpu.src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  CHECK(p.gpu.dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  CHECK(p.gpu.end_ns - p.gpu.start_ns == 300);
  CHECK(p.kernel_name == nullptr);

  auto peer = zeroed<CUpti_ActivityMemcpyPtoP4>();
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  peer.srcDeviceId = 0;
  peer.dstDeviceId = 1;
  peer.deviceId = 0;
  peer.bytes = 64;
  peer.start = 10;
  peer.end = 20;
  p = parse_activity(as_activity(&peer), 0);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.kind == GpuKind::kMemcpy);
  CHECK(p.gpu.copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
  CHECK(p.gpu.device == 0);
  CHECK(p.gpu.peer_device == 1);

  auto s = zeroed<CUpti_ActivityMemset4>();
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.value = 0xAB;
  s.bytes = 4096;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  s.start = 50;
  s.end = 60;
  s.correlationId = 9;
  p = parse_activity(as_activity(&s), 0);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.kind == GpuKind::kMemset);
  CHECK(p.gpu.detail == 0xAB);
  CHECK(p.gpu.dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  CHECK(p.gpu.correlation == 9);
}

TEST_CASE("parser: a copy pairs with the runtime call, not the driver call", "[cupti]") {
  // cupti_activity.h, CUpti_ActivityMemcpy6: correlationId is the driver
  // call's id, runtimeCorrelationId the runtime call's (0 for a copy made
  // through the driver API).
  auto c = zeroed<CUpti_ActivityMemcpy6>();
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.start = 100;
  c.end = 400;
  c.correlationId = 12;         // cuMemcpy* inside cudaMemcpy
  c.runtimeCorrelationId = 11;  // cudaMemcpy
  ParsedActivity p = parse_activity(as_activity(&c), 0);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.correlation == 11);
  c.runtimeCorrelationId = 0;  // cuMemcpyHtoD called by the program
  p = parse_activity(as_activity(&c), 0);
  CHECK(p.gpu.correlation == 12);
}

TEST_CASE("parser: records without timestamps are counted, never shown", "[cupti]") {
  auto k = zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "k";
  CHECK(parse_activity(as_activity(&k), 0).outcome == ActivityOutcome::kZeroTimestamp);
  auto c = zeroed<CUpti_ActivityMemcpy6>();
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  CHECK(parse_activity(as_activity(&c), 0).outcome == ActivityOutcome::kZeroTimestamp);
}

TEST_CASE("parser: only gprof's external correlation kind is taken", "[cupti]") {
  auto e = zeroed<CUpti_ActivityExternalCorrelation>();
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  e.externalId = 123456789;
  e.correlationId = 42;
  ParsedActivity p = parse_activity(as_activity(&e), 0);
  REQUIRE(p.outcome == ActivityOutcome::kExternal);
  CHECK(p.correlation == 42);
  CHECK(p.external_id == 123456789);
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;  // kineto's
  CHECK(parse_activity(as_activity(&e), 0).outcome == ActivityOutcome::kIgnored);
}

TEST_CASE("parser: synchronization records; API records are ignored", "[cupti]") {
  auto s = zeroed<CUpti_ActivitySynchronization2>();
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.start = 1000;
  s.end = 9000;
  s.streamId = UINT32_MAX;
  s.correlationId = 3;
  ParsedActivity p = parse_activity(as_activity(&s), 0);
  REQUIRE(p.outcome == ActivityOutcome::kGpu);
  CHECK(p.gpu.kind == GpuKind::kSync);
  CHECK(p.gpu.detail == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
  CHECK(p.gpu.stream == 0);

  auto api = zeroed<CUpti_ActivityAPI>();
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.start = 1;
  api.end = 2;
  CHECK(parse_activity(as_activity(&api), 0).outcome == ActivityOutcome::kIgnored);
}
