// The failure modes of GPROF_FAKE_CUPTI, one process each (see main.cc for the modes).
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "kernels.h"
#include "util.h"

namespace fake_check {
namespace {

uint64_t Clock() {
  return static_cast<uint64_t>(MonotonicNs());
}

// `n` runtime calls, each one RUNTIME record.
void Calls(int n) {
  for (int i = 0; i < n; ++i) {
    int device = -1;
    CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
  }
}

size_t Dropped() {
  size_t dropped = 0;
  CHECK_EQ(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), CUPTI_SUCCESS);
  return dropped;
}

std::vector<uint32_t> Ids(const std::vector<Record>& records) {
  std::vector<uint32_t> ids;
  for (const Record& record : records) ids.push_back(record.As<CUpti_ActivityAPI>().correlationId);
  return ids;
}

}  // namespace

void NoDriverCase() {
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_ERROR_NOT_INITIALIZED);
  CHECK_EQ(cuptiGetLastError(), CUPTI_ERROR_NOT_INITIALIZED);
  CHECK_EQ(cuptiGetLastError(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_ERROR_NOT_INITIALIZED);
  CHECK_EQ(RegisterBuffers(), CUPTI_ERROR_NOT_INITIALIZED);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_ERROR_NOT_INITIALIZED);
  uint64_t timestamp = 0;
  CHECK_EQ(cuptiGetTimestamp(&timestamp), CUPTI_ERROR_NOT_INITIALIZED);
  uint32_t version = 0;
  CHECK_EQ(cuptiGetVersion(&version), CUPTI_SUCCESS);
  // The program itself is unaffected.
  Calls(1);
}

void SubscriberTakenCase() {
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "gprof";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof(old_name);
  CHECK_EQ(cuptiSubscribe_v2(&subscriber, nullptr, nullptr, &params),
           CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  CHECK(std::string(old_name).find("fake other tool") != std::string::npos);
  // Activity still works without the callback API.
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(3);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_RUNTIME).size(), 3u);
}

void ActivityInUseCase() {
  // Another tool owns the buffers: a flush before registering succeeds.
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(2);  // the other tool's records, not ours, and not lost
  CHECK_EQ(Dropped(), 0u);
  // Registering anyway takes the buffers over, as with CUPTI before 13.2.
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  Calls(1);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_RUNTIME).size(), 1u);
}

void InsufficientPrivilegesCase() {
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
    CHECK_EQ(cuptiActivityEnable(kind), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  }
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), CUPTI_SUCCESS);
}

void DropEveryCase() {  // drop_every=3
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(30);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_RUNTIME).size(), 20u);
  CHECK_EQ(Dropped(), 10u);
  CHECK_EQ(Dropped(), 0u);  // the count restarts at every call
}

void ZeroTimestampsCase() {  // zero_timestamps_every=2
  const void* kernel = RegisterKernel("_Z5emptyv");
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL), CUPTI_SUCCESS);
  for (int i = 0; i < 6; ++i) {
    CHECK_EQ(cudaLaunchKernel(kernel, dim3(1), dim3(1), nullptr, 0, nullptr), cudaSuccess);
  }
  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const std::vector<Record> kernels = OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_KERNEL);
  CHECK_EQ(kernels.size(), 6u);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i].As<CUpti_ActivityKernel10>();
    if (i % 2 == 1) {
      CHECK_EQ(k.start, 0u);
      CHECK_EQ(k.end, 0u);
    } else {
      CHECK(k.start != 0 && k.end > k.start);
    }
  }
}

void OutOfOrderCase() {  // out_of_order,buffer_records=2
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(6);
  CHECK_EQ(TakeBuffers().size(), 0u);  // held back until a flush
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  const std::vector<std::vector<Record>> buffers = TakeBuffers();
  CHECK_EQ(buffers.size(), 3u);
  if (buffers.size() != 3) return;
  for (const std::vector<Record>& buffer : buffers) CHECK_EQ(buffer.size(), 2u);
  // Newest buffer first; records within a buffer in order.
  const std::vector<uint32_t> first = Ids(buffers[0]);
  const std::vector<uint32_t> last = Ids(buffers[2]);
  CHECK(first[0] < first[1]);
  CHECK(first[0] > last[1]);
}

void OutOfOrderSplitCase() {  // out_of_order
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(4);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  // One buffer's worth is split in two so that the order can be wrong.
  const std::vector<std::vector<Record>> buffers = TakeBuffers();
  CHECK_EQ(buffers.size(), 2u);
  if (buffers.size() != 2) return;
  CHECK_EQ(buffers[0].size(), 2u);
  CHECK_EQ(buffers[1].size(), 2u);
  CHECK(Ids(buffers[0])[0] > Ids(buffers[1])[1]);
  CHECK_EQ(BadCompletions(), 0u);
}

void NoTimestampCallbackCase() {
  CHECK_EQ(cuptiActivityRegisterTimestampCallback(Clock), CUPTI_ERROR_NOT_SUPPORTED);
}

void VersionCase() {  // version=12345
  uint32_t version = 0;
  CHECK_EQ(cuptiGetVersion(&version), CUPTI_SUCCESS);
  CHECK_EQ(version, 12345u);
}

void BufferRecordsCase() {  // buffer_records=1
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(5);
  // Completed as soon as they hold one record, without a flush.
  const std::vector<std::vector<Record>> buffers = TakeBuffers();
  CHECK_EQ(buffers.size(), 5u);
  for (const std::vector<Record>& buffer : buffers) CHECK_EQ(buffer.size(), 1u);
}

void DeclinedBuffersCase() {
  BufferPolicy policy;
  policy.decline = true;
  SetBufferPolicy(policy);
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  Calls(5);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(TakeRecords().size(), 0u);
  CHECK_EQ(Dropped(), 5u);
  // A buffer too small for one record is as good as none.
  policy.decline = false;
  policy.size = 16;
  SetBufferPolicy(policy);
  Calls(2);
  CHECK_EQ(Dropped(), 2u);
  // A client-side record limit completes the buffer when reached.
  policy.size = 64 << 10;
  policy.max_records = 3;
  SetBufferPolicy(policy);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  TakeBuffers();
  Calls(3);
  CHECK_EQ(TakeBuffers().size(), 1u);
}

void UnknownModeCase() {  // bogus,version=abc,version=7
  // Capture stderr before the fake reads its configuration.
  char path[] = "/tmp/fake_cupti_stderr_XXXXXX";
  const int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  const int saved = dup(2);
  dup2(fd, 2);
  uint32_t version = 0;
  CHECK_EQ(cuptiGetVersion(&version), CUPTI_SUCCESS);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text(4096, '\0');
  text.resize(static_cast<size_t>(pread(fd, text.data(), text.size(), 0)));
  close(fd);
  unlink(path);
  CHECK_EQ(version, 7u);
  CHECK(text.find("fake cupti: ") == 0);
  CHECK(text.find("'bogus'") != std::string::npos);
  CHECK(text.find("'version=abc'") != std::string::npos);
  size_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  CHECK_EQ(lines, 2u);
}

}  // namespace fake_check
