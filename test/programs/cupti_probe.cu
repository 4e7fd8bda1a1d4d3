// cupti_probe: asks the CUPTI, runtime and driver in this process the questions gprof's capture
// depends on, and prints the answers as one JSON object (issue 29 item 2). One case per process
// (`cupti_probe CASE`): several answers depend on what the process did before (a flush before any
// registration, the first subscriber). scripts/gpu-probe runs every case on a real GPU and keeps
// the answers; test/unit/fakes replays a checked-in answer file against the fake CUPTI, so that
// the fakes are held to what the real libraries said, not to what their headers say.
//
// Only facts a fake can be held to go in the answers (return codes, which callback ids fire,
// which ids a record carries, which thread completes a buffer); timings go in "timing" keys,
// which the replay ignores.
//
// Cases: flush_order, subscribe, attributes, callbacks, records, finalize, clock, per_thread,
// launch_cost MODE (MODE: none, callbacks, kernel, kernel_shared, kernel_zeroed, kernel_sync).
// Links libcupti.so.13 and libcuda.so.1: the fakes when they come first on LD_LIBRARY_PATH.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

__global__ void empty_kernel() {}
__global__ void touch(float* p) {
  p[threadIdx.x] += 1.0f;
}

namespace {

// ---- JSON out: flat keys, values already formatted ---------------------------------------

std::vector<std::pair<std::string, std::string>> g_out;

void put(const std::string& key, const std::string& json_value) {
  g_out.emplace_back(key, json_value);
}
std::string str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o + "\"";
}
std::string num(long long v) {
  return std::to_string(v);
}
std::string boolean(bool b) {
  return b ? "true" : "false";
}
std::string list(const std::vector<std::string>& items) {
  std::string o = "[";
  for (size_t i = 0; i < items.size(); ++i) o += (i ? ", " : "") + items[i];
  return o + "]";
}
std::string result(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return str(s ? s : std::to_string(r));
}
void print_out() {
  std::printf("{\n");
  for (size_t i = 0; i < g_out.size(); ++i)
    std::printf("  %s: %s%s\n", str(g_out[i].first).c_str(), g_out[i].second.c_str(),
                i + 1 < g_out.size() ? "," : "");
  std::printf("}\n");
}

long tid() {
  return syscall(SYS_gettid);
}

// ---- Activity buffers: remember who completes what ---------------------------------------

constexpr size_t kBufferBytes = 1 << 20;
std::mutex g_mutex;
std::vector<std::vector<uint8_t>> g_completed;  // copies of the valid bytes
std::atomic<int> g_requested{0}, g_returned{0};
std::atomic<int> g_completed_on_main{0}, g_completed_elsewhere{0};
long g_main_tid = 0;
thread_local bool t_in_flush = false;
std::atomic<int> g_completed_in_own_flush{0};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
  g_requested++;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  g_returned++;
  (tid() == g_main_tid ? g_completed_on_main : g_completed_elsewhere)++;
  if (t_in_flush) g_completed_in_own_flush++;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_completed.emplace_back(buffer, buffer + valid);
  free(buffer);
}

CUptiResult flush(uint32_t flags) {
  t_in_flush = true;
  const CUptiResult r = cuptiActivityFlushAll(flags);
  t_in_flush = false;
  return r;
}

template <typename F>
void each_record(F&& f) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& b : g_completed) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(b.data(), b.size(), &record) == CUPTI_SUCCESS) f(record);
  }
}

// ---- Cases ----------------------------------------------------------------------------

// What FlushAll answers before and after buffer callbacks exist (the check that turned every
// real run CPU-only: cupti_activity.h documents INVALID_OPERATION before registration).
void case_flush_order() {
  put("flush_before_cuda_init", result(cuptiActivityFlushAll(0)));
  cudaFree(nullptr);
  put("flush_before_register", result(cuptiActivityFlushAll(0)));
  put("flush_forced_before_register",
      result(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)));
  put("register_callbacks",
      result(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)));
  put("flush_after_register_nothing_enabled", result(cuptiActivityFlushAll(0)));
  put("enable_concurrent_kernel",
      result(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)));
  put("flush_after_enable", result(cuptiActivityFlushAll(0)));
  put("register_callbacks_again",
      result(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)));
  size_t dropped = 0;
  put("get_num_dropped_records", result(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped)));
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void case_subscribe() {
  CUpti_SubscriberHandle first = nullptr, second = nullptr, third = nullptr;
  put("subscribe_first", result(cuptiSubscribe(&first, ignore_callback, nullptr)));
  put("subscribe_second", result(cuptiSubscribe(&second, ignore_callback, nullptr)));
  CUpti_SubscriberParams params{};
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "probe-v2";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name - 1;
  put("subscribe_v2_second", result(cuptiSubscribe_v2(&third, ignore_callback, nullptr, &params)));
  put("subscribe_v2_holder_name", str(old_name));
  put("unsubscribe_first", result(cuptiUnsubscribe(first)));
  CUpti_SubscriberHandle named = nullptr;
  params.subscriberName = "probe-named";
  put("subscribe_v2_after_unsubscribe",
      result(cuptiSubscribe_v2(&named, ignore_callback, nullptr, &params)));
  std::memset(old_name, 0, sizeof old_name);
  params.subscriberName = "probe-v2-again";
  put("subscribe_v2_while_named_holds",
      result(cuptiSubscribe_v2(&third, ignore_callback, nullptr, &params)));
  put("subscribe_v2_named_holder_name", str(old_name));
  // Activity works without a subscriber of one's own (kineto's newer order).
  put("register_callbacks_without_subscriber_slot",
      result(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)));
}

void case_attributes() {
  auto get_u8 = [](CUpti_ActivityAttribute a, const char* key) {
    uint8_t v = 0xff;
    size_t size = sizeof v;
    const CUptiResult r = cuptiActivityGetAttribute(a, &size, &v);
    put(std::string(key) + "_get", result(r));
    if (r == CUPTI_SUCCESS) put(std::string(key) + "_default", num(v));
  };
  auto get_size = [](CUpti_ActivityAttribute a, const char* key) {
    size_t v = 0, size = sizeof v;
    const CUptiResult r = cuptiActivityGetAttribute(a, &size, &v);
    put(std::string(key) + "_get", result(r));
    if (r == CUPTI_SUCCESS) put(std::string(key) + "_default", num(static_cast<long long>(v)));
  };
  get_u8(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "per_thread_buffer");
  get_u8(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, "zeroed_out_buffer");
  get_u8(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, "host_pinned");
  get_size(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, "device_buffer_size");
  get_size(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, "device_buffer_pool_limit");
  get_size(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, "device_buffer_pre_allocate");
  uint8_t zero = 0;
  size_t size = sizeof zero;
  put("per_thread_buffer_set_0_before_register",
      result(
          cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &zero)));
  uint8_t v = 0xff;
  size = sizeof v;
  cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &v);
  put("per_thread_buffer_after_set_0", num(v));
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  uint8_t one = 1;
  size = sizeof one;
  put("per_thread_buffer_set_1_after_register",
      result(
          cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &one)));
}

// Which callback ids fire, in which domain, for each API; the callback's context against the
// primary context; correlation ids.
std::mutex g_cb_mutex;
std::vector<std::string> g_cb_names;
std::atomic<int> g_cb_null_context{0}, g_cb_primary_context{0}, g_cb_other_context{0};
std::atomic<int> g_cb_exit_same_correlation{0}, g_cb_exit_other_correlation{0};
CUcontext g_primary = nullptr;

void CUPTIAPI record_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId,
                              const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (d->callbackSite == CUPTI_API_ENTER) {
    *d->correlationData = d->correlationId;
    std::lock_guard<std::mutex> lock(g_cb_mutex);
    g_cb_names.push_back((domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "rt:" : "drv:") +
                         std::string(d->functionName));
  } else {
    (*d->correlationData == d->correlationId ? g_cb_exit_same_correlation
                                             : g_cb_exit_other_correlation)++;
    if (d->context == nullptr)
      g_cb_null_context++;
    else if (d->context == g_primary)
      g_cb_primary_context++;
    else
      g_cb_other_context++;
  }
}

std::vector<std::string> take_names() {
  std::lock_guard<std::mutex> lock(g_cb_mutex);
  std::vector<std::string> out;
  for (auto& n : g_cb_names) out.push_back(str(n));
  g_cb_names.clear();
  return out;
}

void case_callbacks() {
  CUpti_SubscriberHandle s = nullptr;
  put("subscribe", result(cuptiSubscribe(&s, record_callback, nullptr)));
  cudaFree(nullptr);
  CUdevice dev = 0;
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&g_primary, dev);
  cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_DRIVER_API);
  take_names();
  float *d = nullptr, *h = nullptr;
  cudaMalloc(&d, 4096);
  put("cb_cudaMalloc", list(take_names()));
  cudaMallocHost(&h, 4096);
  put("cb_cudaMallocHost", list(take_names()));
  std::vector<float> pageable(1024, 1.0f);
  cudaMemcpy(d, pageable.data(), 4096, cudaMemcpyHostToDevice);
  put("cb_cudaMemcpy_HtoD_pageable", list(take_names()));
  cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, 0);
  put("cb_cudaMemcpyAsync_DtoH_pinned", list(take_names()));
  cudaMemset(d, 0, 4096);
  put("cb_cudaMemset", list(take_names()));
  cudaMemsetAsync(d, 0, 4096, 0);
  put("cb_cudaMemsetAsync", list(take_names()));
  touch<<<1, 32>>>(d);
  put("cb_triple_chevron_launch", list(take_names()));
  void* args[] = {&d};
  cudaLaunchKernel(reinterpret_cast<const void*>(touch), dim3(1), dim3(32), args, 0, 0);
  put("cb_cudaLaunchKernel", list(take_names()));
  cudaStreamSynchronize(0);
  put("cb_cudaStreamSynchronize", list(take_names()));
  cudaDeviceSynchronize();
  put("cb_cudaDeviceSynchronize", list(take_names()));
  cudaEvent_t e;
  cudaEventCreate(&e);
  take_names();
  cudaEventRecord(e, 0);
  cudaEventSynchronize(e);
  put("cb_cudaEventRecord_Synchronize", list(take_names()));
  cudaFree(d);
  put("cb_cudaFree", list(take_names()));
  cudaFreeHost(h);
  put("cb_cudaFreeHost", list(take_names()));
  put("cb_exit_context_null", num(g_cb_null_context));
  put("cb_exit_context_primary", num(g_cb_primary_context));
  put("cb_exit_context_other", num(g_cb_other_context));
  put("cb_correlation_data_kept_enter_to_exit", boolean(g_cb_exit_other_correlation == 0));
}

const char* copy_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "other";
  }
}
const char* mem_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
      return "Managed";
    default:
      return "other";
  }
}
const char* sync_type(uint32_t t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "stream_wait_event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "stream";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "context";
    default:
      return "unknown";
  }
}

// The runtime calls this case makes, named as cupti_runtime_cbid.h names them (the fake CUPTI has
// no cuptiGetCallbackName; these are the same names).
std::string runtime_name(uint32_t cbid) {
  switch (cbid) {
#define NAME(x)                      \
  case CUPTI_RUNTIME_TRACE_CBID_##x: \
    return #x;
    NAME(cudaMemcpy_v3020)
    NAME(cudaMemcpyAsync_v3020)
    NAME(cudaMemcpyPeer_v4000)
    NAME(cudaMemset_v3020)
    NAME(cudaLaunchKernel_v7000)
    NAME(cudaStreamWaitEvent_v3020)
    NAME(cudaEventSynchronize_v3020)
    NAME(cudaStreamSynchronize_v3020)
    NAME(cudaDeviceSynchronize_v3020)
#undef NAME
    default:
      return "cbid=" + std::to_string(cbid);
  }
}

// CUPTI 13's per-thread buffers (its default): how many buffers three launching threads take,
// and whether a plain flush hands back partly filled ones or only a forced flush does. gprof
// keeps one process-wide set by default; turning per-thread buffers on rests on these answers
// (collector/gpu/session/setup.cc, request_buffer_mode): a writer whose periodic plain flush
// got nothing back would see GPU records only when a thread's buffer fills.
void case_per_thread() {
  g_main_tid = tid();
  cudaFree(nullptr);
  put("register_callbacks",
      result(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)));
  put("enable_concurrent_kernel",
      result(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)));
  const auto launch = [] {
    empty_kernel<<<1, 1>>>();
    cudaDeviceSynchronize();
  };
  launch();
  for (int i = 0; i < 2; ++i) std::thread(launch).join();
  put("requests_for_three_launching_threads", num(g_requested.load()));
  const auto kernels = [] {
    long long n = 0;
    each_record([&](CUpti_Activity* r) { n += r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL; });
    return n;
  };
  put("flush_plain", result(flush(0)));
  put("kernel_records_after_plain_flush", num(kernels()));
  put("flush_forced", result(flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)));
  put("kernel_records_after_forced_flush", num(kernels()));
  put("all_requested_buffers_returned", boolean(g_returned.load() == g_requested.load()));
}

// The records of each kind and the ids they carry, named by the API records that share them.
void case_records() {
  g_main_tid = tid();
  cudaFree(nullptr);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  for (auto k : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                 CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
                 CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME,
                 CUPTI_ACTIVITY_KIND_DRIVER})
    cuptiActivityEnable(k);
  float *d = nullptr, *d2 = nullptr, *h = nullptr;
  std::vector<float> pageable(1024, 1.0f);
  cudaMalloc(&d, 4096);
  cudaMalloc(&d2, 4096);
  cudaMallocHost(&h, 4096);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaMemcpy(d, pageable.data(), 4096, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(d2, h, 4096, cudaMemcpyHostToDevice, s);
  cudaMemcpy(d2, d, 4096, cudaMemcpyDeviceToDevice);
  cudaMemcpyPeer(d2, 0, d, 0, 4096);
  cudaMemset(d, 0, 4096);
  touch<<<1, 32, 0, s>>>(d);
  cudaEventRecord(e, s);
  cudaStreamWaitEvent(0, e, 0);
  cudaEventSynchronize(e);
  cudaStreamSynchronize(s);
  cudaMemcpy(h, d, 4096, cudaMemcpyDeviceToHost);
  cudaDeviceSynchronize();
  put("flush_forced", result(flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)));

  std::map<uint32_t, std::string> api_by_corr;  // correlation id -> "rt:name" / "drv:name"
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> api_times;
  each_record([&](CUpti_Activity* r) {
    if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME || r->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      auto* a = reinterpret_cast<CUpti_ActivityAPI*>(r);
      api_by_corr[a->correlationId] = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                          ? "rt:" + runtime_name(a->cbid)
                                          : "drv:cbid=" + std::to_string(a->cbid);
      api_times[a->correlationId] = {uint64_t(a->start), uint64_t(a->end)};
    }
  });
  auto api = [&](uint32_t id) {
    auto it = api_by_corr.find(id);
    return it == api_by_corr.end() ? (id == 0 ? std::string("0") : std::string("unknown"))
                                   : it->second;
  };
  std::vector<std::string> memcpys, memsets, kernels, syncs, peers;
  each_record([&](CUpti_Activity* r) {
    switch (r->kind) {
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(r);
        memcpys.push_back(str(std::string(copy_kind(m->copyKind)) + " (" + mem_kind(m->srcKind) +
                              " -> " + mem_kind(m->dstKind) +
                              ") correlationId=" + api(m->correlationId) +
                              " runtimeCorrelationId=" + api(m->runtimeCorrelationId)));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpyPtoP4*>(r);
        peers.push_back(
            str(std::string(copy_kind(m->copyKind)) + " correlationId=" + api(m->correlationId)));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(r);
        memsets.push_back(str("correlationId=" + api(m->correlationId)));
        break;
      }
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(r);
        kernels.push_back(str("correlationId=" + api(k->correlationId) +
                              (k->start == 0 && k->end == 0 ? " no-timestamp" : "")));
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        auto* y = reinterpret_cast<CUpti_ActivitySynchronization2*>(r);
        auto t = api_times.find(y->correlationId);
        std::string times = "api times unknown";
        if (t != api_times.end()) {
          const bool inside = y->start >= t->second.first && y->end <= t->second.second;
          times = inside ? "inside the API call's times" : "outside the API call's times";
        }
        syncs.push_back(str(std::string(sync_type(y->type)) +
                            " correlationId=" + api(y->correlationId) + " " + times));
        break;
      }
      default:
        break;
    }
  });
  put("memcpy_records", list(memcpys));
  put("memcpy2_records", list(peers));
  put("memset_records", list(memsets));
  put("kernel_records", list(kernels));
  put("synchronization_records", list(syncs));
  put("buffers_completed_on_main_thread", num(g_completed_on_main));
  put("buffers_completed_on_other_threads", num(g_completed_elsewhere));
  put("buffers_completed_inside_own_flush", num(g_completed_in_own_flush));
}

// Does cuptiFinalize hand every requested buffer back?
void case_finalize() {
  g_main_tid = tid();
  cudaFree(nullptr);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  for (int i = 0; i < 100; ++i) empty_kernel<<<1, 1>>>();
  cudaDeviceSynchronize();
  const int requested_before = g_requested;
  put("finalize", result(cuptiFinalize()));
  put("requested_before_finalize", num(requested_before));
  put("returned_by_finalize", num(g_returned));
  put("all_buffers_returned", boolean(g_returned == g_requested));
  int kernels = 0;
  each_record(
      [&](CUpti_Activity* r) { kernels += r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL; });
  put("kernel_records_after_finalize", num(kernels));
  put("buffers_completed_on_main_thread", num(g_completed_on_main));
  put("buffers_completed_on_other_threads", num(g_completed_elsewhere));
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
uint64_t CUPTIAPI probe_clock() {
  return monotonic_ns() + 123456789;
}

void case_clock() {
  cudaFree(nullptr);
  uint64_t cupti = 0;
  const uint64_t before = monotonic_ns();
  put("get_timestamp", result(cuptiGetTimestamp(&cupti)));
  const int64_t offset = static_cast<int64_t>(cupti) - static_cast<int64_t>(before);
  put("timing_cupti_minus_monotonic_ns", num(offset));
  put("cupti_clock_within_1s_of_monotonic", boolean(offset > -1000000000 && offset < 1000000000));
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  put("register_timestamp_callback_after_enable",
      result(cuptiActivityRegisterTimestampCallback(probe_clock)));
  const uint64_t m = monotonic_ns();
  cuptiGetTimestamp(&cupti);
  const int64_t after = static_cast<int64_t>(cupti) - static_cast<int64_t>(m);
  put("get_timestamp_follows_callback", boolean(after > 100000000 && after < 150000000));
  const uint64_t launch = monotonic_ns();
  empty_kernel<<<1, 1>>>();
  cudaDeviceSynchronize();
  flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  bool on_callback_clock = false;
  each_record([&](CUpti_Activity* r) {
    if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return;
    auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(r);
    const int64_t d = static_cast<int64_t>(k->start) - static_cast<int64_t>(launch);
    on_callback_clock = d > 100000000 && d < 1000000000;
  });
  put("kernel_record_on_callback_clock", boolean(on_callback_clock));
}

// The cost of a launch under CUPTI set up in different ways (issue 30's leads).
void case_launch_cost(const char* mode) {
  const std::string m = mode;
  g_main_tid = tid();
  cudaFree(nullptr);
  CUpti_SubscriberHandle s = nullptr;
  if (m != "none") {
    cuptiSubscribe(&s, ignore_callback, nullptr);
    cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (m.rfind("kernel", 0) == 0) {
    uint8_t v = 0;
    size_t size = sizeof v;
    if (m == "kernel_shared")
      cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &v);
    if (m == "kernel_zeroed") {
      v = 1;
      cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &v);
    }
    cuptiActivityRegisterCallbacks(
        [](uint8_t** b, size_t* size, size_t* max) {
          *b = static_cast<uint8_t*>(calloc(1, 8 << 20));
          *size = 8 << 20;
          *max = 0;
        },
        [](CUcontext, uint32_t, uint8_t* b, size_t, size_t) { free(b); });
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (m == "kernel_sync") cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  }
  const int warm = 10000, n = 200000;
  for (int i = 0; i < warm; ++i) empty_kernel<<<1, 1>>>();
  cudaDeviceSynchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    empty_kernel<<<1, 1>>>();
    if (i % 1000 == 999) cudaStreamSynchronize(0);
  }
  cudaDeviceSynchronize();
  const auto t1 = std::chrono::steady_clock::now();
  put("mode", str(m));
  put("timing_ns_per_launch",
      num(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count() / n));
  if (m.rfind("kernel", 0) == 0) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cupti_probe CASE [MODE]\n");
    return 2;
  }
  const std::string c = argv[1];
  put("case", str(c));
  uint32_t version = 0;
  cuptiGetVersion(&version);
  put("env_cupti_api_version", num(version));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  put("env_driver_version", num(driver));
  put("env_runtime_version", num(runtime));
  if (c == "flush_order")
    case_flush_order();
  else if (c == "subscribe")
    case_subscribe();
  else if (c == "attributes")
    case_attributes();
  else if (c == "callbacks")
    case_callbacks();
  else if (c == "records")
    case_records();
  else if (c == "finalize")
    case_finalize();
  else if (c == "clock")
    case_clock();
  else if (c == "per_thread")
    case_per_thread();
  else if (c == "launch_cost" && argc > 2)
    case_launch_cost(argv[2]);
  else {
    std::fprintf(stderr, "cupti_probe: unknown case %s\n", c.c_str());
    return 2;
  }
  print_out();
  return 0;
}
