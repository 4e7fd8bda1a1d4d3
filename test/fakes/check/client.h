// A minimal CUPTI client, as a profiler's CUPTI layer would be: it subscribes to callbacks and
// records them, and owns the activity buffers and collects what comes back in them.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fake_check {

// One callback, copied out of its CUpti_CallbackData.
struct Event {
  CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_INVALID;
  CUpti_CallbackId cbid = 0;
  CUpti_ApiCallbackSite site = CUPTI_API_ENTER;
  std::string function;
  std::string symbol;  // empty when symbolName is null
  uint32_t correlation_id = 0;
  uint64_t* correlation_data = nullptr;
  uint64_t correlation_data_value = 0;  // as found when the callback ran
  CUcontext context = nullptr;
  uint32_t context_uid = 0;
  int32_t result = 0;  // EXIT only
  bool has_params = false;
  uint32_t launch_grid_x = 0;  // cuLaunchKernel(_ptsz) only, from its functionParams
  void* allocated = nullptr;   // cudaMalloc EXIT only: *devPtr, read through functionParams
  const char* symbol_pointer = nullptr;
  uint64_t timestamp = 0;  // cuptiGetTimestamp when the callback ran
};

// One activity record, copied out of its buffer.
struct Record {
  CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID;
  std::vector<uint64_t> storage;  // 8-byte units keep the record aligned
  template <typename T>
  const T& As() const {
    return *reinterpret_cast<const T*>(storage.data());
  }
};

// Subscribes with a callback that records every event; every ENTER stores `correlationId` in
// correlationData, which the EXIT then reports back.
CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber);
std::vector<Event> TakeEvents();

struct BufferPolicy {
  size_t size = 64 << 10;
  size_t max_records = 0;
  bool decline = false;  // answer requests with a null buffer
};
void SetBufferPolicy(const BufferPolicy& policy);
CUptiResult RegisterBuffers();
// Records from every buffer completed so far, grouped by buffer in completion order.
std::vector<std::vector<Record>> TakeBuffers();
std::vector<Record> TakeRecords();
size_t BuffersRequested();
// Completions that named a buffer the client never gave out, or one twice.
size_t BadCompletions();

// Records of one kind.
std::vector<Record> OfKind(const std::vector<Record>& records, CUpti_ActivityKind kind);

}  // namespace fake_check
