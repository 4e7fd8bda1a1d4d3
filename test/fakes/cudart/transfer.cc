#include "transfer.h"

#include <algorithm>
#include <mutex>

#include "api_call.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

bool IsDeviceSide(GprofFakeMemoryKind kind) {
  return kind == GPROF_FAKE_MEMORY_DEVICE || kind == GPROF_FAKE_MEMORY_MANAGED;
}

// Bytes spanned by `height` rows of `width` bytes, `pitch` apart.
size_t Extent(size_t pitch, size_t width, size_t height) {
  return pitch * (height - 1) + width;
}

// A pointer the runtime handed out must cover the whole range; one it must have handed out
// (`required`) must exist. Host pointers it did not allocate cannot be checked.
bool RangeOk(const MemoryRegistry& memory, const void* ptr, size_t extent, bool required) {
  if (memory.Find(ptr) == nullptr) return !required;
  return memory.Find(ptr, extent) != nullptr;
}

// Requires runtime.mu.
cudaError_t PrepareCopy(const Runtime& runtime, const CopyArgs& args, OpRequest* request) {
  if (args.dst == nullptr || args.src == nullptr) return cudaErrorInvalidValue;
  if (args.kind < cudaMemcpyHostToHost || args.kind > cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  if (args.dst_pitch < args.width || args.src_pitch < args.width) {
    return cudaErrorInvalidPitchValue;
  }
  const MemoryRegistry& memory = runtime.memory;
  request->kind = GPROF_FAKE_OP_MEMCPY;
  request->dst = args.dst;
  request->src = args.src;
  request->width = args.width;
  request->height = args.height;
  request->dst_pitch = args.dst_pitch;
  request->src_pitch = args.src_pitch;
  request->dst_kind = memory.KindOf(args.dst);
  request->src_kind = memory.KindOf(args.src);

  bool dst_device = IsDeviceSide(request->dst_kind);
  bool src_device = IsDeviceSide(request->src_kind);
  if (args.peer) {
    dst_device = src_device = true;
  } else if (args.kind != cudaMemcpyDefault) {
    dst_device = args.kind == cudaMemcpyHostToDevice || args.kind == cudaMemcpyDeviceToDevice;
    src_device = args.kind == cudaMemcpyDeviceToHost || args.kind == cudaMemcpyDeviceToDevice;
  }
  if (!RangeOk(memory, args.dst, Extent(args.dst_pitch, args.width, args.height), dst_device) ||
      !RangeOk(memory, args.src, Extent(args.src_pitch, args.width, args.height), src_device)) {
    return cudaErrorInvalidValue;
  }
  if (args.peer && args.src_device != args.dst_device) {
    request->copy_kind = GPROF_FAKE_COPY_PTOP;
  } else {
    request->copy_kind =
        static_cast<GprofFakeCopyKind>((src_device ? 2 : 0) + (dst_device ? 1 : 0));
  }
  return cudaSuccess;
}

bool ValidDevice(const Runtime& runtime, int device) {
  return device >= 0 && device < runtime.config.device_count;
}

// The copy itself, on behalf of the call `correlation_id` (and of the runtime call
// `runtime_correlation_id` around it, or 0).
cudaError_t CopyOnTimeline(uint32_t correlation_id, uint32_t runtime_correlation_id,
                           const CopyArgs& args, cudaStream_t stream, bool per_thread,
                           HostBlocking blocking) {
  auto& runtime = GetRuntime();
  int64_t wait_until_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    StreamRef ref;
    if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
        error != cudaSuccess) {
      return error;
    }
    if (args.peer &&
        (!ValidDevice(runtime, args.dst_device) || !ValidDevice(runtime, args.src_device))) {
      return cudaErrorInvalidDevice;
    }
    if (args.width == 0 || args.height == 0) return cudaSuccess;
    OpRequest request;
    if (const cudaError_t error = PrepareCopy(runtime, args, &request); error != cudaSuccess) {
      return error;
    }
    request.src_device = args.peer ? args.src_device : ref.device;
    request.dst_device = args.peer ? args.dst_device : ref.device;
    if (args.peer) {
      // A peer copy is serialized with all work on both devices.
      runtime.timeline.WaitFor(ref.timeline_id,
                               std::max(runtime.timeline.DeviceDoneNs(args.src_device),
                                        runtime.timeline.DeviceDoneNs(args.dst_device)));
    }
    const Interval interval =
        Issue(runtime, ref, request, correlation_id, {}, runtime_correlation_id);
    // The real cudaMemcpy returns before a device-to-device copy completes, and blocks for any
    // copy that touches host memory.
    const bool device_only =
        request.copy_kind == GPROF_FAKE_COPY_DTOD || request.copy_kind == GPROF_FAKE_COPY_PTOP;
    if (blocking == HostBlocking::kSync && !device_only) wait_until_ns = interval.end_ns;
    // cudaMemcpyAsync "might be synchronous with respect to host" for transfers between device
    // and pageable host memory (CUDA Runtime API reference, "API synchronization behavior",
    // Asynchronous, item 2): a copy into pageable memory cannot return before the data is
    // there, so the real runtime waits for the copy (and for the work queued before it on the
    // stream). Host-to-device copies from pageable memory are staged and return at once.
    if (blocking == HostBlocking::kAsync && request.copy_kind == GPROF_FAKE_COPY_DTOH &&
        request.dst_kind == GPROF_FAKE_MEMORY_PAGEABLE)
      wait_until_ns = interval.end_ns;
  }
  HostWait(wait_until_ns);
  return cudaSuccess;
}

}  // namespace

// A runtime copy hands the work to the driver, and CUPTI's memcpy record carries the driver
// call's id as correlationId and the runtime call's as runtimeCorrelationId (cupti_activity.h,
// CUpti_ActivityMemcpy6). Which driver entry point the real runtime uses is not documented; the
// fake calls the generic cuMemcpy / cuMemcpyAsync (and their per-thread twins) for every kind.
cudaError_t Copy(uint32_t correlation_id, const CopyArgs& args, cudaStream_t stream,
                 bool per_thread, HostBlocking blocking) {
  if (!InnermostCallIsRuntime()) {
    return CopyOnTimeline(correlation_id, 0, args, stream, per_thread, blocking);
  }
  const bool async = blocking == HostBlocking::kAsync;
  const cuMemcpyAsync_params params{reinterpret_cast<CUdeviceptr>(args.dst),
                                    reinterpret_cast<CUdeviceptr>(args.src),
                                    args.width * args.height, reinterpret_cast<CUstream>(stream)};
  const char* name = async ? (per_thread ? "cuMemcpyAsync_ptsz" : "cuMemcpyAsync")
                           : (per_thread ? "cuMemcpy_ptds" : "cuMemcpy");
  const uint32_t cbid = async ? (per_thread ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz
                                            : CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync)
                              : (per_thread ? CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds
                                            : CUPTI_DRIVER_TRACE_CBID_cuMemcpy);
  // cuMemcpy_params is cuMemcpyAsync_params without its last member.
  ApiCall driver(ApiCall::NestedDriver{}, name, cbid, &params);
  return driver.Return(
      CopyOnTimeline(driver.correlation_id(), correlation_id, args, stream, per_thread, blocking));
}

cudaError_t Set(uint32_t correlation_id, const SetArgs& args, cudaStream_t stream, bool per_thread,
                HostBlocking blocking) {
  auto& runtime = GetRuntime();
  int64_t wait_until_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    StreamRef ref;
    if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
        error != cudaSuccess) {
      return error;
    }
    if (args.dst == nullptr) return cudaErrorInvalidValue;
    if (args.pitch < args.width) return cudaErrorInvalidPitchValue;
    if (args.element_bytes != 1 &&
        (reinterpret_cast<uintptr_t>(args.dst) % args.element_bytes != 0 ||
         args.width % args.element_bytes != 0)) {
      return cudaErrorInvalidValue;
    }
    if (args.width == 0 || args.height == 0) return cudaSuccess;
    // Only memory the runtime allocated can be set.
    if (!RangeOk(runtime.memory, args.dst, Extent(args.pitch, args.width, args.height), true)) {
      return cudaErrorInvalidValue;
    }
    OpRequest request;
    request.kind = GPROF_FAKE_OP_MEMSET;
    request.dst = args.dst;
    request.dst_pitch = args.pitch;
    request.width = args.width;
    request.height = args.height;
    request.value = args.value;
    request.element_bytes = args.element_bytes;
    request.dst_kind = runtime.memory.KindOf(args.dst);
    const Interval interval = Issue(runtime, ref, request, correlation_id);
    // The real cudaMemset is asynchronous for device memory and synchronous for pinned host and
    // managed memory.
    if (blocking == HostBlocking::kSync && request.dst_kind != GPROF_FAKE_MEMORY_DEVICE) {
      wait_until_ns = interval.end_ns;
    }
  }
  HostWait(wait_until_ns);
  return cudaSuccess;
}

}  // namespace gprof_fake
