#include "activity_buffers.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "config.h"
#include "records.h"

namespace gprof_fake_cupti {
namespace {

struct Buffer {
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t used = 0;
  size_t records = 0;
  size_t max_records = 0;  // what the client asked for; 0: as many as fit
};

struct State {
  std::mutex mu;  // guards everything below; never held while calling the client
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  bool registered = false;
  bool other_tool = GetConfig().activity_in_use;
  bool per_thread_requested = true;  // the attribute as last set
  bool per_thread = true;            // in effect since registration
  Buffer current;                    // data == nullptr: none; the one buffer when not per_thread
  std::map<std::thread::id, Buffer> thread_current;  // per_thread: each thread's
  std::vector<Buffer> spare;  // requested by a thread that then found a current buffer
  std::vector<Buffer> held;   // out_of_order: completed, delivered at the next flush
  // Shared buffers (not per_thread) are one buffer for the process: one request for it at a time.
  // Threads that find it missing while another thread asks wait for that buffer rather than ask
  // for one each, so that six threads starting at once still cost one request.
  // A record made by the asking thread itself (from inside the request callback) does not wait.
  std::thread::id requester;  // the thread asking now; none: id()
  std::condition_variable request_done;
  uint64_t produced = 0;
  size_t dropped = 0;
};

// Leaked on purpose: app threads and atexit handlers may still produce records during exit.
State& GetState() {
  static State* state = new State;
  return *state;
}

// The buffer the calling thread's records go to. References stay valid: entries are never
// erased (std::map nodes do not move), only emptied.
Buffer& CurrentBuffer(State& state) {
  return state.per_thread ? state.thread_current[std::this_thread::get_id()] : state.current;
}

// Moves every current buffer for which `take` holds into `out`, leaving them empty.
template <typename Take>
void TakeCurrent(State& state, Take take, std::vector<Buffer>* out) {
  if (take(state.current)) {
    out->push_back(state.current);
    state.current = Buffer{};
  }
  for (auto& [thread, buffer] : state.thread_current) {
    if (!take(buffer)) continue;
    out->push_back(buffer);
    buffer = Buffer{};
  }
}

bool Fits(const Buffer& buffer, size_t size) {
  return buffer.size - buffer.used >= size &&
         (buffer.max_records == 0 || buffer.records < buffer.max_records);
}

bool Full(const Buffer& buffer) {
  const uint64_t limit = GetConfig().buffer_records;
  return (limit != 0 && buffer.records >= limit) ||
         (buffer.max_records != 0 && buffer.records >= buffer.max_records);
}

std::atomic<bool> g_zeroed_promised{false};
std::atomic<bool> g_told_not_zeroed{false};

Buffer Request(CUpti_BuffersCallbackRequestFunc request) {
  Buffer buffer;
  if (request != nullptr) request(&buffer.data, &buffer.size, &buffer.max_records);
  if (buffer.data == nullptr) return buffer;
  if (!g_zeroed_promised.load()) {
    std::memset(buffer.data, 0, buffer.size);
  } else if (std::any_of(buffer.data, buffer.data + buffer.size, [](uint8_t b) { return b; }) &&
             !g_told_not_zeroed.exchange(true)) {
    std::fprintf(stderr,
                 "fake CUPTI: a buffer promised zeroed (ZEROED_OUT_ACTIVITY_BUFFER) "
                 "was not\n");
  }
  return buffer;
}

void Deliver(CUpti_BuffersCallbackCompleteFunc complete, const std::vector<Buffer>& buffers) {
  if (complete == nullptr) return;
  for (const Buffer& buffer : buffers) {
    complete(nullptr, 0, buffer.data, buffer.size, buffer.used);
  }
}

// A buffer leaves the fake: to the client at once, or held back until the next flush.
void Complete(std::vector<Buffer>* buffers) {
  if (buffers->empty()) return;
  State& state = GetState();
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  {
    std::lock_guard lock(state.mu);
    if (GetConfig().out_of_order) {
      state.held.insert(state.held.end(), buffers->begin(), buffers->end());
      buffers->clear();
      return;
    }
    complete = state.complete;
  }
  Deliver(complete, *buffers);
  buffers->clear();
}

// Moves the second half of `buffer`'s records into a new client buffer, so that out_of_order
// has at least two buffers to reverse. Leaves `buffer` whole when the client has no room.
bool Split(Buffer* buffer, CUpti_BuffersCallbackRequestFunc request, Buffer* tail) {
  size_t offset = 0;
  for (size_t i = 0; i < buffer->records / 2; ++i) {
    const auto* record = reinterpret_cast<const CUpti_Activity*>(buffer->data + offset);
    offset += RecordSize(record->kind);
  }
  const size_t tail_bytes = buffer->used - offset;
  *tail = Request(request);
  if (tail->data == nullptr || tail->size < tail_bytes) return false;
  std::memcpy(tail->data, buffer->data + offset, tail_bytes);
  tail->used = tail_bytes;
  tail->records = buffer->records - buffer->records / 2;
  buffer->used = offset;
  buffer->records /= 2;
  return true;
}

}  // namespace

CUptiResult RegisterBufferCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                    CUpti_BuffersCallbackCompleteFunc complete) {
  if (request == nullptr || complete == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& state = GetState();
  std::lock_guard lock(state.mu);
  // Before CUPTI 13.2 the buffers are process-wide: a second client takes them over.
  state.request = request;
  state.complete = complete;
  state.registered = true;
  state.other_tool = false;
  state.per_thread = state.per_thread_requested;
  return CUPTI_SUCCESS;
}

void SetZeroedBuffersPromised(bool promised) {
  g_zeroed_promised.store(promised);
}

void SetPerThreadBuffers(bool enabled) {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  state.per_thread_requested = enabled;
}

bool PerThreadBuffersRequested() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  return state.per_thread_requested;
}

void AddRecord(const void* record, size_t size) {
  State& state = GetState();
  const Config& config = GetConfig();
  std::vector<Buffer> done;
  std::unique_lock lock(state.mu);
  if (!state.registered) {
    if (!state.other_tool) ++state.dropped;
    return;
  }
  ++state.produced;
  if (config.drop_every != 0 && state.produced % config.drop_every == 0) {
    ++state.dropped;
    return;
  }
  bool asked = false;
  for (;;) {
    if (!state.registered) {  // finalized while this thread was asking for a buffer
      ++state.dropped;
      break;
    }
    Buffer& current = CurrentBuffer(state);
    if (current.data != nullptr && Fits(current, size)) {
      std::memcpy(current.data + current.used, record, size);
      current.used += size;
      ++current.records;
      if (Full(current)) {
        done.push_back(current);
        current = Buffer{};
      }
      break;
    }
    // Full, or too small for this record even when empty: back to the client either way.
    if (current.data != nullptr) {
      done.push_back(current);
      current = Buffer{};
    }
    if (!state.spare.empty()) {
      current = state.spare.back();
      state.spare.pop_back();
      continue;
    }
    if (asked) {  // the client's new buffer cannot take the record: CUPTI drops it
      ++state.dropped;
      break;
    }
    const std::thread::id me = std::this_thread::get_id();
    if (!state.per_thread && state.requester != std::thread::id() && state.requester != me) {
      state.request_done.wait(lock);
      continue;
    }
    const CUpti_BuffersCallbackRequestFunc request = state.request;
    const bool shared_request = !state.per_thread;
    if (shared_request && state.requester == std::thread::id()) state.requester = me;
    lock.unlock();
    Complete(&done);
    Buffer fresh = Request(request);
    asked = true;
    lock.lock();
    if (shared_request && state.requester == me) {
      state.requester = std::thread::id();
      state.request_done.notify_all();
    }
    if (reinterpret_cast<uintptr_t>(fresh.data) % ACTIVITY_RECORD_ALIGNMENT != 0) {
      done.push_back(fresh);  // unusable: records must be aligned
      fresh = Buffer{};
    }
    if (fresh.data == nullptr) {  // the client declined
      ++state.dropped;
      break;
    }
    if (Buffer& mine = CurrentBuffer(state); mine.data == nullptr) {
      mine = fresh;
    } else {
      state.spare.push_back(fresh);
    }
  }
  lock.unlock();
  Complete(&done);
}

CUptiResult FlushBuffers(void (*deliver_gpu_ops)(int wait_for_device), bool forced) {
  State& state = GetState();
  {
    std::lock_guard lock(state.mu);
    // Observed on a real GPU (NVIDIA H200, driver 580.159.04, CUPTI 13.0.1, 2026-11-27):
    // CUPTI_SUCCESS with no buffer callbacks registered, where cupti_activity.h documents
    // CUPTI_ERROR_INVALID_OPERATION. So the answer tells a profiler nothing about other tools.
    if (!state.registered) return CUPTI_SUCCESS;
  }
  deliver_gpu_ops(forced ? 1 : 0);
  std::vector<Buffer> buffers;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  {
    std::lock_guard lock(state.mu);
    buffers.swap(state.held);
    TakeCurrent(
        state, [](const Buffer& b) { return b.used > 0; }, &buffers);
    request = state.request;
    complete = state.complete;
  }
  if (GetConfig().out_of_order) {
    Buffer tail;
    if (buffers.size() == 1 && buffers[0].records >= 2) {
      if (Split(&buffers[0], request, &tail)) {
        buffers.push_back(tail);
      } else if (tail.data != nullptr) {
        Deliver(complete, {tail});  // an unused buffer goes back with nothing in it
      }
    }
    std::reverse(buffers.begin(), buffers.end());
  }
  Deliver(complete, buffers);
  return CUPTI_SUCCESS;
}

size_t TakeDroppedRecords() {
  State& state = GetState();
  std::lock_guard lock(state.mu);
  const size_t dropped = state.dropped;
  state.dropped = 0;
  return dropped;
}

void FinalizeBuffers() {
  State& state = GetState();
  std::vector<Buffer> buffers;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  {
    std::lock_guard lock(state.mu);
    buffers.swap(state.held);
    TakeCurrent(
        state, [](const Buffer& b) { return b.data != nullptr; }, &buffers);
    buffers.insert(buffers.end(), state.spare.begin(), state.spare.end());
    state.spare.clear();
    complete = state.complete;
    state.request = nullptr;
    state.complete = nullptr;
    state.registered = false;
  }
  // Observed (NVIDIA H100, driver 580.159.04, CUPTI 13.0.1, 2026-11-27; test/fakes/observed/,
  // case finalize): cuptiFinalize after 100 kernels with one buffer handed out completed none,
  // not even with the records in it. The buffers are the client's to free; their records are lost.
  static_cast<void>(complete);
  static_cast<void>(buffers);
}

}  // namespace gprof_fake_cupti
