// Many threads produce records while others flush: every record arrives once, in buffers the
// client gave out.
#include <cuda_runtime_api.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "kernels.h"
#include "util.h"

namespace fake_check {

void ThreadsCase() {
  const void* kernel = RegisterKernel("_Z6workerv");
  BufferPolicy small;
  small.size = 4096;  // a few dozen records: many completions on app threads
  SetBufferPolicy(small);
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityFlushPeriod(1), CUPTI_SUCCESS);

  constexpr int kThreads = 4;
  constexpr int kLaunches = 250;
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    int round = 0;
    while (!done.load()) {
      cuptiActivityFlushAll(++round % 8 == 0 ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&] {
      cudaStream_t stream = nullptr;
      CHECK_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      for (int i = 0; i < kLaunches; ++i) {
        CHECK_EQ(cudaLaunchKernel(kernel, dim3(1), dim3(32), nullptr, 0, stream), cudaSuccess);
      }
      CHECK_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    });
  }
  for (std::thread& worker : workers) worker.join();
  done.store(true);
  flusher.join();
  CHECK_EQ(cuptiActivityFlushPeriod(0), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);

  const std::vector<Record> records = TakeRecords();
  std::set<uint32_t> kernel_ids;
  for (const Record& record : OfKind(records, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    kernel_ids.insert(record.As<CUpti_ActivityKernel10>().correlationId);
  }
  CHECK_EQ(OfKind(records, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).size(),
           static_cast<size_t>(kThreads * kLaunches));
  CHECK_EQ(kernel_ids.size(), static_cast<size_t>(kThreads * kLaunches));
  const auto launches = ApiRecords(records, CUPTI_ACTIVITY_KIND_RUNTIME,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  CHECK_EQ(launches.size(), static_cast<size_t>(kThreads * kLaunches));
  for (const CUpti_ActivityAPI& launch : launches)
    CHECK(kernel_ids.count(launch.correlationId) == 1);
  size_t dropped = 99;
  CHECK_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), CUPTI_SUCCESS);
  CHECK_EQ(dropped, 0u);
  CHECK_EQ(BadCompletions(), 0u);
  CHECK(BuffersRequested() > 10);
}

// CUPTI 13 fills a buffer per thread that makes records unless the client sets
// CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER to 0 before registering (cupti_activity.h, "The
// default value is 1"): threads that each make one record before any flush hold one buffer each.
namespace {

size_t BuffersForThreads(int threads) {
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([] {
      int device = -1;
      CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
    });
  }
  for (std::thread& worker : workers) worker.join();
  const size_t requested = BuffersRequested();
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  CHECK_EQ(ApiRecords(TakeRecords(), CUPTI_ACTIVITY_KIND_RUNTIME,
                      CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020)
               .size(),
           static_cast<size_t>(threads));
  return requested;
}

}  // namespace

void PerThreadBuffersCase() {
  uint8_t value = 0;
  size_t size = sizeof value;
  CHECK_EQ(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &value),
           CUPTI_SUCCESS);
  CHECK_EQ(value, 1u);
  CHECK_EQ(BuffersForThreads(6), 6u);
}

void SharedBuffersCase() {
  uint8_t off = 0;
  size_t size = sizeof off;
  CHECK_EQ(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &off),
           CUPTI_SUCCESS);
  size_t wrong = sizeof(uint32_t);
  uint32_t wide = 0;
  CHECK_EQ(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &wrong, &wide),
           CUPTI_ERROR_INVALID_PARAMETER);
  CHECK_EQ(BuffersForThreads(6), 1u);
}

}  // namespace fake_check
