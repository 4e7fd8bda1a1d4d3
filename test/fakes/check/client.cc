#include "client.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace fake_check {
namespace {

struct State {
  std::mutex mu;
  std::vector<Event> events;
  BufferPolicy policy;
  std::set<uint8_t*> outstanding;
  std::vector<std::vector<Record>> buffers;
  size_t requested = 0;
  size_t bad_completions = 0;
};

State& GetState() {
  static State* state = new State;
  return *state;
}

size_t SizeOf(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    default:
      return 0;
  }
}

void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* cbdata) {
  static_cast<void>(userdata);
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  Event event;
  event.domain = domain;
  event.cbid = cbid;
  event.site = data->callbackSite;
  event.function = data->functionName != nullptr ? data->functionName : "";
  event.symbol = data->symbolName != nullptr ? data->symbolName : "";
  event.symbol_pointer = data->symbolName;
  event.correlation_id = data->correlationId;
  event.correlation_data = data->correlationData;
  event.context = data->context;
  event.context_uid = data->contextUid;
  event.has_params = data->functionParams != nullptr;
  if (data->callbackSite == CUPTI_API_ENTER) {
    *data->correlationData = data->correlationId;
  } else {
    event.result = *static_cast<const int32_t*>(data->functionReturnValue);
  }
  event.correlation_data_value = *data->correlationData;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && data->functionParams != nullptr &&
      (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)) {
    event.launch_grid_x = static_cast<const cuLaunchKernel_params*>(data->functionParams)->gridDimX;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 &&
      data->callbackSite == CUPTI_API_EXIT && data->functionParams != nullptr) {
    event.allocated = *static_cast<const cudaMalloc_v3020_params*>(data->functionParams)->devPtr;
  }
  cuptiGetTimestamp(&event.timestamp);
  State& state = GetState();
  std::lock_guard lock(state.mu);
  state.events.push_back(event);
}

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  ++state.requested;
  *max_records = state.policy.max_records;
  if (state.policy.decline) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, state.policy.size));
  *size = state.policy.size;
  state.outstanding.insert(*buffer);
}

void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size,
                                size_t valid_size) {
  static_cast<void>(context);
  static_cast<void>(stream_id);
  static_cast<void>(size);
  std::vector<Record> records;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    Record copy;
    copy.kind = record->kind;
    const size_t bytes = SizeOf(record->kind);
    copy.storage.resize((bytes + 7) / 8);
    std::memcpy(copy.storage.data(), record, bytes);
    records.push_back(std::move(copy));
  }
  State& state = GetState();
  std::lock_guard lock(state.mu);
  if (state.outstanding.erase(buffer) == 0) ++state.bad_completions;
  state.buffers.push_back(std::move(records));
  std::free(buffer);
}

}  // namespace

CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber) {
  return cuptiSubscribe(subscriber, OnCallback, nullptr);
}

std::vector<Event> TakeEvents() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  std::vector<Event> events;
  events.swap(state.events);
  return events;
}

void SetBufferPolicy(const BufferPolicy& policy) {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  state.policy = policy;
}

CUptiResult RegisterBuffers() {
  return cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
}

std::vector<std::vector<Record>> TakeBuffers() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  std::vector<std::vector<Record>> buffers;
  buffers.swap(state.buffers);
  return buffers;
}

std::vector<Record> TakeRecords() {
  std::vector<Record> records;
  for (std::vector<Record>& buffer : TakeBuffers()) {
    for (Record& record : buffer) records.push_back(std::move(record));
  }
  return records;
}

size_t BuffersRequested() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  return state.requested;
}

size_t BadCompletions() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  return state.bad_completions;
}

std::vector<Record> OfKind(const std::vector<Record>& records, CUpti_ActivityKind kind) {
  std::vector<Record> selected;
  for (const Record& record : records) {
    if (record.kind == kind) selected.push_back(record);
  }
  return selected;
}

}  // namespace fake_check
