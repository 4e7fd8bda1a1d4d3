// Activity records of runtime work: kinds, correlation, external correlation, synchronization,
// the default clock; and the timestamp callback.
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <unistd.h>

#include <vector>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "kernels.h"
#include "util.h"

namespace fake_check {
namespace {

constexpr CUpti_ActivityKind kAllKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                            CUPTI_ACTIVITY_KIND_MEMCPY,
                                            CUPTI_ACTIVITY_KIND_MEMSET,
                                            CUPTI_ACTIVITY_KIND_RUNTIME,
                                            CUPTI_ACTIVITY_KIND_DRIVER,
                                            CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                            CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

uint64_t SevenSecondsAhead() {
  return static_cast<uint64_t>(MonotonicNs()) + 7'000'000'000ull;
}

// The index of the first record of `kind` whose correlation id (read by `id`) is `wanted`.
template <typename T, typename Id>
size_t IndexOf(const std::vector<Record>& records, CUpti_ActivityKind kind, uint32_t wanted,
               Id id) {
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].kind == kind && id(records[i].As<T>()) == wanted) return i;
  }
  return records.size();
}

}  // namespace

void ActivityCase() {
  const void* kernel = RegisterKernel("_Z5scalePffi");
  uint32_t version = 0;
  CHECK_EQ(cuptiGetVersion(&version), CUPTI_SUCCESS);
  CHECK_EQ(version, static_cast<uint32_t>(CUPTI_API_VERSION));
  // Nobody registered buffers yet, and the answer is still success (observed with CUPTI 13.0.1,
  // where cupti_activity.h documents INVALID_OPERATION): it tells a profiler nothing.
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  const int64_t before_ts = MonotonicNs();
  uint64_t timestamp = 0;
  CHECK_EQ(cuptiGetTimestamp(&timestamp), CUPTI_SUCCESS);
  CHECK(static_cast<int64_t>(timestamp) >= before_ts + DefaultClockOffsetNs());
  CHECK(static_cast<int64_t>(timestamp) <= MonotonicNs() + DefaultClockOffsetNs() + 2'000'000);

  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  for (const CUpti_ActivityKind kind : kAllKinds)
    CHECK_EQ(cuptiActivityEnable(kind), CUPTI_SUCCESS);
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_SUCCESS);
  CHECK_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);

  const int64_t start_ns = MonotonicNs();
  constexpr size_t kBytes = 1 << 20;
  std::vector<float> host(kBytes / sizeof(float), 1.0f);
  float* device = nullptr;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&device), kBytes), cudaSuccess);
  CHECK_EQ(cudaMemcpy(device, host.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  CHECK_EQ(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 42),
           CUPTI_SUCCESS);
  void* args[] = {&device};
  CHECK_EQ(cudaLaunchKernel(kernel, dim3(4), dim3(128), args, 64, nullptr), cudaSuccess);
  uint64_t popped = 0;
  CHECK_EQ(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped),
           CUPTI_SUCCESS);
  CHECK_EQ(popped, 42u);
  CHECK_EQ(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped),
           CUPTI_ERROR_QUEUE_EMPTY);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(cudaMemset(device, 7, 4096), cudaSuccess);
  CHECK_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const int64_t end_ns = MonotonicNs();
  const std::vector<Record> records = TakeRecords();
  const std::vector<Event> events = TakeEvents();

  const auto id_of = [&](const char* function) {
    const size_t at = FindEvent(events, function, CUPTI_API_ENTER);
    return at < events.size() ? events[at].correlation_id : 0u;
  };
  const uint32_t memcpy_id = id_of("cudaMemcpy");
  const uint32_t launch_id = id_of("cudaLaunchKernel");
  const uint32_t sync_id = id_of("cudaDeviceSynchronize");
  const uint32_t memset_id = id_of("cudaMemset");
  const uint32_t stream_sync_id = id_of("cudaStreamSynchronize");
  CHECK(launch_id != 0);

  const std::vector<Record> kernels = OfKind(records, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  CHECK_EQ(kernels.size(), 1u);
  uint32_t kernel_stream = 0;
  if (!kernels.empty()) {
    const auto& k = kernels[0].As<CUpti_ActivityKernel10>();
    CHECK_EQ(std::string(k.name), std::string("_Z5scalePffi"));
    CHECK_EQ(k.correlationId, launch_id);
    CHECK_EQ(k.gridX, 4);
    CHECK_EQ(k.blockX, 128);
    CHECK_EQ(k.dynamicSharedMemory, 64);
    CHECK_EQ(k.end - k.start, kKernelNs);
    CHECK_EQ(k.deviceId, 0u);
    CHECK_EQ(k.contextId, 1u);
    CHECK(k.streamId != 0);
    CHECK_EQ(k.launchType, static_cast<uint8_t>(CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR));
    // On CUPTI's default clock: CLOCK_REALTIME.
    CHECK(static_cast<int64_t>(k.start) >= static_cast<int64_t>(start_ns) + DefaultClockOffsetNs());
    CHECK(static_cast<int64_t>(k.end) <=
          static_cast<int64_t>(end_ns) + DefaultClockOffsetNs() + 2'000'000);
    kernel_stream = k.streamId;
  }

  const std::vector<Record> copies = OfKind(records, CUPTI_ACTIVITY_KIND_MEMCPY);
  CHECK_EQ(copies.size(), 1u);
  if (!copies.empty()) {
    const auto& c = copies[0].As<CUpti_ActivityMemcpy6>();
    CHECK_EQ(c.copyKind, static_cast<uint8_t>(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD));
    CHECK_EQ(c.srcKind, static_cast<uint8_t>(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE));
    CHECK_EQ(c.dstKind, static_cast<uint8_t>(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
    CHECK_EQ(c.bytes, static_cast<uint64_t>(kBytes));
    CHECK_EQ(c.end - c.start, CopyNs(kBytes));
    // Observed with CUPTI 13.0.1 (not as cupti_activity.h says): the runtime call's id, and 0.
    CHECK_EQ(c.correlationId, memcpy_id);
    CHECK_EQ(c.runtimeCorrelationId, 0u);
  }

  const std::vector<Record> sets = OfKind(records, CUPTI_ACTIVITY_KIND_MEMSET);
  CHECK_EQ(sets.size(), 1u);
  if (!sets.empty()) {
    const auto& s = sets[0].As<CUpti_ActivityMemset4>();
    CHECK_EQ(s.value, 7u);
    CHECK_EQ(s.bytes, 4096u);
    CHECK_EQ(s.memoryKind, static_cast<uint16_t>(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
    CHECK_EQ(s.correlationId, memset_id);
  }

  // API records: the runtime's, and the driver calls it made.
  const auto launches = ApiRecords(records, CUPTI_ACTIVITY_KIND_RUNTIME,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  CHECK_EQ(launches.size(), 1u);
  if (!launches.empty()) {
    CHECK_EQ(launches[0].correlationId, launch_id);
    CHECK(launches[0].start <= launches[0].end);
    CHECK_EQ(launches[0].processId, static_cast<uint32_t>(getpid()));
    CHECK_EQ(launches[0].threadId, static_cast<uint32_t>(pthread_self()));
    CHECK_EQ(launches[0].returnValue, 0u);
  }
  const auto driver_launches =
      ApiRecords(records, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  CHECK_EQ(driver_launches.size(), 1u);
  if (!driver_launches.empty()) CHECK(driver_launches[0].correlationId > launch_id);
  CHECK_EQ(ApiRecords(records, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize)
               .size(),
           1u);

  // The external id precedes the API record of the call made while it was pushed.
  const size_t external = IndexOf<CUpti_ActivityExternalCorrelation>(
      records, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, launch_id,
      [](const CUpti_ActivityExternalCorrelation& r) { return r.correlationId; });
  const size_t api =
      IndexOf<CUpti_ActivityAPI>(records, CUPTI_ACTIVITY_KIND_RUNTIME, launch_id,
                                 [](const CUpti_ActivityAPI& r) { return r.correlationId; });
  CHECK(external < api);
  if (external < records.size()) {
    const auto& e = records[external].As<CUpti_ActivityExternalCorrelation>();
    CHECK_EQ(e.externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
    CHECK_EQ(e.externalId, 42u);
  }
  // None for calls outside the pushed region.
  CHECK_EQ(IndexOf<CUpti_ActivityExternalCorrelation>(
               records, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, memcpy_id,
               [](const CUpti_ActivityExternalCorrelation& r) { return r.correlationId; }),
           records.size());

  // One synchronization record per synchronizing runtime call; none for the nested driver one.
  const std::vector<Record> syncs = OfKind(records, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  CHECK_EQ(syncs.size(), 2u);
  for (const Record& record : syncs) {
    const auto& s = record.As<CUpti_ActivitySynchronization2>();
    if (s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE) {
      CHECK_EQ(s.correlationId, sync_id);
      CHECK_EQ(s.streamId, CUPTI_SYNCHRONIZATION_INVALID_VALUE);
    } else {
      CHECK_EQ(s.type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
      CHECK_EQ(s.correlationId, stream_sync_id);
      CHECK_EQ(s.streamId, kernel_stream);
    }
    CHECK(s.start <= s.end);
    CHECK_EQ(s.contextId, 1u);
  }

  size_t dropped = 99;
  CHECK_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), CUPTI_SUCCESS);
  CHECK_EQ(dropped, 0u);
  CHECK_EQ(BadCompletions(), 0u);
  // Nothing new: a flush completes no empty buffer.
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  CHECK_EQ(TakeBuffers().size(), 0u);
}

void TimestampCallbackCase() {
  const void* kernel = RegisterKernel("_Z5emptyv");
  CHECK_EQ(cuptiActivityRegisterTimestampCallback(SevenSecondsAhead), CUPTI_SUCCESS);
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  uint64_t timestamp = 0;
  const uint64_t before_ts = SevenSecondsAhead();
  CHECK_EQ(cuptiGetTimestamp(&timestamp), CUPTI_SUCCESS);
  CHECK(timestamp >= before_ts && timestamp <= SevenSecondsAhead());

  const uint64_t before = SevenSecondsAhead();
  CHECK_EQ(cudaLaunchKernel(kernel, dim3(1), dim3(1), nullptr, 0, nullptr), cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const uint64_t after = SevenSecondsAhead();
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const std::vector<Record> records = TakeRecords();
  const std::vector<Record> kernels = OfKind(records, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  CHECK_EQ(kernels.size(), 1u);
  // The offset is sampled once, so allow for its sampling error.
  constexpr uint64_t kSlackNs = 50'000;
  for (const Record& record : kernels) {
    const auto& k = record.As<CUpti_ActivityKernel10>();
    CHECK(k.start + kSlackNs >= before);
    CHECK(k.end <= after + kSlackNs);
  }
  const auto launches = ApiRecords(records, CUPTI_ACTIVITY_KIND_RUNTIME,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  CHECK_EQ(launches.size(), 1u);
  for (const CUpti_ActivityAPI& launch : launches) {
    CHECK(launch.start + kSlackNs >= before);
    CHECK(launch.end <= after + kSlackNs);
  }
}

}  // namespace fake_check

namespace fake_check {

// GPROF_FAKE_KERNEL_NS_OVERRIDE="slow=50000,_Z4fastPf=3000,broken,bad=abc": by function name or
// mangled name; other kernels keep GPROF_FAKE_KERNEL_NS, malformed entries are ignored.
void KernelNsOverrideCase() {
  const void* slow = RegisterKernel("_Z4slowPf");
  const void* fast = RegisterKernel("_Z4fastPf");
  const void* other = RegisterKernel("_Z5otherPf");
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  float* device = nullptr;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 256), cudaSuccess);
  void* args[] = {&device};
  for (const void* kernel : {slow, fast, other})
    CHECK_EQ(cudaLaunchKernel(kernel, dim3(1), dim3(32), args, 0, nullptr), cudaSuccess);
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const std::vector<Record> kernels = OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  CHECK_EQ(kernels.size(), 3u);
  for (const Record& record : kernels) {
    const auto& k = record.As<CUpti_ActivityKernel10>();
    const std::string name(k.name);
    const uint64_t expected = name == "_Z4slowPf"   ? 50'000
                              : name == "_Z4fastPf" ? 3'000
                                                    : kKernelNs;
    CHECK_EQ(k.end - k.start, expected);
  }
  CHECK_EQ(cudaFree(device), cudaSuccess);
}

}  // namespace fake_check

namespace fake_check {

// cudaMemcpyAsync from the device into pageable memory "might be synchronous with respect to
// host" (CUDA Runtime API reference, "API synchronization behavior"): the data must be in the
// caller's memory when it returns, so the fake returns once the copy, and the kernel queued
// before it on the stream, are done.
void PageableCopiesCase() {
  const void* kernel = RegisterKernel("_Z6fillerPf");
  float* device = nullptr;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 256), cudaSuccess);
  cudaStream_t stream = nullptr;
  CHECK_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<float> pageable(64);
  void* args[] = {&device};
  CHECK_EQ(cudaLaunchKernel(kernel, dim3(1), dim3(32), args, 0, stream), cudaSuccess);
  CHECK_EQ(cudaMemcpyAsync(pageable.data(), device, 256, cudaMemcpyDeviceToHost, stream),
           cudaSuccess);
  CHECK_EQ(cudaStreamQuery(stream), cudaSuccess);
  CHECK_EQ(cudaStreamDestroy(stream), cudaSuccess);
  CHECK_EQ(cudaFree(device), cudaSuccess);
}

}  // namespace fake_check
