// The fake driver: driver-API work on the shared timeline, as CUPTI reports it.
#include <cuda.h>

#include <cstring>
#include <string>
#include <vector>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "util.h"

namespace fake_check {

void DriverCase() {
  // Nothing works before cuInit.
  int count = -1;
  CHECK_EQ(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);

  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_SUCCESS);
  CHECK_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}) {
    CHECK_EQ(cuptiActivityEnable(kind), CUPTI_SUCCESS);
  }

  CHECK_EQ(cuInit(0), CUDA_SUCCESS);
  int version = 0;
  CHECK_EQ(cuDriverGetVersion(&version), CUDA_SUCCESS);
  CHECK_EQ(version, 13000);
  CHECK_EQ(cuDeviceGetCount(&count), CUDA_SUCCESS);
  CHECK_EQ(count, 1);
  CUdevice device = -1;
  CHECK_EQ(cuDeviceGet(&device, 0), CUDA_SUCCESS);
  CHECK_EQ(cuDeviceGet(&device, 1), CUDA_ERROR_INVALID_DEVICE);
  char name[128] = {};
  CHECK_EQ(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
  CHECK(std::strlen(name) > 0);
  CUcontext context = nullptr;
  CHECK_EQ(cuDevicePrimaryCtxRetain(&context, 0), CUDA_SUCCESS);
  CHECK(context != nullptr);
  CHECK_EQ(cuCtxSetCurrent(context), CUDA_SUCCESS);
  CUcontext current = nullptr;
  CHECK_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  CHECK_EQ(current, context);

  CUmodule module = nullptr;
  CHECK_EQ(cuModuleLoad(&module, "/nonexistent/kernels.fatbin"), CUDA_ERROR_FILE_NOT_FOUND);
  CHECK_EQ(cuModuleLoadData(&module, "any bytes"), CUDA_SUCCESS);
  CUfunction function = nullptr;
  CHECK_EQ(cuModuleGetFunction(&function, module, "scale"), CUDA_SUCCESS);

  constexpr size_t kBytes = 4096;
  std::vector<float> host(kBytes / sizeof(float), 3.0f);
  CUdeviceptr buffer = 0;
  CHECK_EQ(cuMemAlloc(&buffer, kBytes), CUDA_SUCCESS);
  CHECK_EQ(cuMemcpyHtoD(buffer, host.data(), kBytes), CUDA_SUCCESS);
  float factor = 2.0f;
  int n = static_cast<int>(host.size());
  void* params[] = {&buffer, &factor, &n};
  CHECK_EQ(cuLaunchKernel(function, 2, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  CHECK_EQ(cuLaunchKernelEx(&config, function, params, nullptr), CUDA_SUCCESS);
  CHECK_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  CHECK_EQ(cuMemsetD32(buffer, 0x3f800000u, kBytes / 4), CUDA_SUCCESS);  // 1.0f
  CHECK_EQ(cuMemcpyDtoH(host.data(), buffer, kBytes), CUDA_SUCCESS);
  CHECK_EQ(host[0], 1.0f);
  CHECK_EQ(host.back(), 1.0f);

  uint32_t id = 0;
  CHECK_EQ(cuptiGetContextId(context, &id), CUPTI_SUCCESS);
  CHECK_EQ(id, 1u);
  CHECK_EQ(cuptiGetDeviceId(context, &id), CUPTI_SUCCESS);
  CHECK_EQ(id, 0u);
  uint32_t legacy_stream = 0;
  CHECK_EQ(cuptiGetStreamId(context, nullptr, &legacy_stream), CUPTI_SUCCESS);

  CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
  const std::vector<Record> records = TakeRecords();
  const std::vector<Event> events = TakeEvents();

  const size_t launch = FindEvent(events, "cuLaunchKernel", CUPTI_API_ENTER);
  const size_t launch_ex = FindEvent(events, "cuLaunchKernelEx", CUPTI_API_ENTER);
  const size_t sync = FindEvent(events, "cuCtxSynchronize", CUPTI_API_ENTER);
  const size_t to_device = FindEvent(events, "cuMemcpyHtoD_v2", CUPTI_API_ENTER);
  CHECK(launch < events.size() && launch_ex < events.size() && sync < events.size() &&
        to_device < events.size());
  if (launch >= events.size() || launch_ex >= events.size() || sync >= events.size() ||
      to_device >= events.size()) {
    return;
  }
  CHECK_EQ(events[launch].domain, CUPTI_CB_DOMAIN_DRIVER_API);
  CHECK_EQ(events[launch].symbol, std::string("scale"));
  CHECK_EQ(events[launch].launch_grid_x, 2u);
  CHECK_EQ(events[launch_ex].symbol, std::string("scale"));
  const size_t init = FindEvent(events, "cuInit", CUPTI_API_ENTER);
  CHECK(init < events.size());

  const std::vector<Record> kernels = OfKind(records, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  CHECK_EQ(kernels.size(), 2u);
  if (kernels.size() == 2) {
    const auto& first = kernels[0].As<CUpti_ActivityKernel10>();
    const auto& second = kernels[1].As<CUpti_ActivityKernel10>();
    CHECK_EQ(std::string(first.name), std::string("scale"));
    CHECK_EQ(first.correlationId, events[launch].correlation_id);
    CHECK_EQ(first.gridX, 2);
    CHECK_EQ(first.blockX, 64);
    CHECK_EQ(first.streamId, legacy_stream);
    CHECK_EQ(second.correlationId, events[launch_ex].correlation_id);
    CHECK_EQ(second.blockX, 32);
    CHECK(second.start >= first.end);  // one stream: in order
  }
  const std::vector<Record> copies = OfKind(records, CUPTI_ACTIVITY_KIND_MEMCPY);
  CHECK_EQ(copies.size(), 2u);
  if (!copies.empty()) {
    const auto& c = copies[0].As<CUpti_ActivityMemcpy6>();
    CHECK_EQ(c.copyKind, static_cast<uint8_t>(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD));
    CHECK_EQ(c.correlationId, events[to_device].correlation_id);
  }
  const std::vector<Record> sets = OfKind(records, CUPTI_ACTIVITY_KIND_MEMSET);
  CHECK_EQ(sets.size(), 1u);
  if (!sets.empty()) CHECK_EQ(sets[0].As<CUpti_ActivityMemset4>().value, 0x3f800000u);
  const std::vector<Record> syncs = OfKind(records, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  CHECK_EQ(syncs.size(), 1u);
  if (!syncs.empty()) {
    CHECK_EQ(syncs[0].As<CUpti_ActivitySynchronization2>().correlationId,
             events[sync].correlation_id);
  }
  CHECK_EQ(ApiRecords(records, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
               .size(),
           1u);

  CHECK_EQ(cuMemFree(buffer), CUDA_SUCCESS);
  CHECK_EQ(cuModuleUnload(module), CUDA_SUCCESS);
  CHECK_EQ(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
           CUDA_ERROR_INVALID_HANDLE);
  CHECK_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
  const char* text = nullptr;
  CHECK_EQ(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
  CHECK_EQ(std::string(text), std::string("CUDA_ERROR_INVALID_VALUE"));
  CHECK_EQ(cuGetErrorString(CUDA_ERROR_NO_DEVICE, &text), CUDA_SUCCESS);
  CHECK_EQ(std::string(text), std::string("no CUDA-capable device is detected"));
}

void NoDeviceCase() {
  CHECK_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
  int count = -1;
  CHECK_EQ(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
}

}  // namespace fake_check
