// The state of the fake runtime: one process-wide object behind one mutex (the fake needs to be
// correct under concurrent callers, not fast), plus the per-thread state the real runtime keeps
// per thread (current device, per-thread default streams).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "config.h"
#include "cuda_abi.h"
#include "fake_gpu_observer.h"
#include "handle_table.h"
#include "memory_registry.h"
#include "module_registry.h"
#include "timeline.h"

namespace gprof_fake {

// One unit of device work before it is scheduled; a captured graph stores these as its nodes.
struct OpRequest {
  GprofFakeGpuOpKind kind = GPROF_FAKE_OP_KERNEL;
  // Kernels.
  const KernelInfo* kernel = nullptr;
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  // Copies and sets: `height` rows of `width` bytes, consecutive rows `*_pitch` bytes apart.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t width = 0;
  size_t height = 1;
  size_t dst_pitch = 0;
  size_t src_pitch = 0;
  int value = 0;
  unsigned element_bytes = 1;  // sets: the size of the pattern `value` repeats (1 or 4)
  GprofFakeCopyKind copy_kind = GPROF_FAKE_COPY_HTOD;
  GprofFakeMemoryKind src_kind = GPROF_FAKE_MEMORY_UNKNOWN;
  GprofFakeMemoryKind dst_kind = GPROF_FAKE_MEMORY_UNKNOWN;
  int src_device = 0;  // copies: they differ for a peer copy
  int dst_device = 0;

  uint64_t bytes() const { return static_cast<uint64_t>(width) * height; }
};

struct Graph {
  uint32_t id = 0;
  std::vector<OpRequest> nodes;
};

struct GraphExec {
  uint32_t graph_id = 0;
  std::vector<OpRequest> nodes;
};

struct StreamObject {
  uint32_t timeline_id = 0;
  int device = 0;
  unsigned flags = 0;
  std::unique_ptr<Graph> capture;  // set between cudaStreamBeginCapture and EndCapture
};

struct EventObject {
  int device = 0;
  unsigned flags = 0;
  bool recorded = false;
  int64_t time_ns = 0;  // when the work recorded before it completes
};

struct Runtime {
  explicit Runtime(const Config& config);

  std::mutex mu;  // guards everything below
  const Config& config;
  Timeline timeline;
  MemoryRegistry memory;
  ModuleRegistry modules;
  HandleTable<StreamObject> streams;
  HandleTable<EventObject> events;
  HandleTable<Graph> graphs;
  HandleTable<GraphExec> graph_execs;
  uint32_t next_graph_id = 1;
  // Whether a call has needed the device, which makes a real runtime create its context.
  bool context_created = false;
  // Set in the child of a fork() made after the context was created: like the real runtime's,
  // the child cannot use the parent's context and every call that needs it fails.
  bool forked_child = false;
  // Set by the runtime's exit handler (injection.cc): later calls fail as the real runtime's do
  // once it has torn itself down.
  std::atomic<bool> unloading{false};
};

// Created on first use and never destroyed: atexit handlers (__cudaUnregisterFatBinary) and
// detached threads may call the runtime while static objects are being torn down.
Runtime& GetRuntime();

// The calling thread's current device (cudaSetDevice), 0 until set.
int CurrentDevice();
void SetCurrentDevice(int device);

// cudaErrorNoDevice when the fake has no devices (GPROF_FAKE_DEVICES=0), as a machine without a
// GPU answers; cudaErrorInitializationError in a forked child. Requires runtime.mu.
cudaError_t RequireDevice(Runtime& runtime);

// A stream as work is issued to it.
struct StreamRef {
  uint32_t timeline_id = 0;
  int device = 0;
  cudaStream_t handle = nullptr;   // as reported to observers; cudaStreamPerThread for that one
  StreamObject* object = nullptr;  // null for the two default streams
};

// Resolves a stream argument. `per_thread_default` is set by the _ptsz/_ptds entry points, for
// which stream 0 means the calling thread's default stream. Requires runtime.mu.
cudaError_t ResolveStream(Runtime& runtime, cudaStream_t stream, bool per_thread_default,
                          StreamRef* out);

// The timeline id of `stream` as seen from `device` (for a default stream, that device's; for a
// created stream, its own), without using it. Requires runtime.mu.
cudaError_t StreamIdOnDevice(Runtime& runtime, int device, cudaStream_t stream,
                             bool per_thread_default, uint32_t* id);

}  // namespace gprof_fake
