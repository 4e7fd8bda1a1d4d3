// Callbacks: what a subscriber sees of runtime calls, including the driver calls the runtime
// makes inside them.
#include <cuda_runtime_api.h>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "kernels.h"
#include "util.h"

namespace fake_check {

void CallbacksCase() {
  const void* kernel = RegisterKernel("_Z5scalePffi");
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_SUCCESS);
  CUpti_SubscriberHandle second = nullptr;
  CHECK_EQ(Subscribe(&second), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  CHECK_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  CHECK_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);
  uint32_t enabled = 0;
  CHECK_EQ(cuptiGetCallbackState(&enabled, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                 CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
           CUPTI_SUCCESS);
  CHECK_EQ(enabled, 1u);

  float* data = nullptr;
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&data), 1024), cudaSuccess);
  float factor = 2.0f;
  int n = 256;
  void* args[] = {&data, &factor, &n};
  CHECK_EQ(cudaLaunchKernel(kernel, dim3(4), dim3(128), args, 0, nullptr), cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<Event> events = TakeEvents();

  // cudaMalloc's out-parameter holds the allocation at EXIT.
  const size_t malloc_exit = FindEvent(events, "cudaMalloc", CUPTI_API_EXIT);
  CHECK(malloc_exit < events.size());
  if (malloc_exit < events.size()) CHECK_EQ(events[malloc_exit].allocated, data);

  // The launch: runtime ENTER, the driver's cuLaunchKernel ENTER and EXIT, runtime EXIT.
  const size_t launch = FindEvent(events, "cudaLaunchKernel", CUPTI_API_ENTER);
  CHECK(launch + 3 < events.size());
  if (launch + 3 < events.size()) {
    const Event& enter = events[launch];
    const Event& driver_enter = events[launch + 1];
    const Event& driver_exit = events[launch + 2];
    const Event& exit = events[launch + 3];
    CHECK_EQ(enter.domain, CUPTI_CB_DOMAIN_RUNTIME_API);
    CHECK_EQ(enter.cbid, static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    CHECK(enter.has_params);
    CHECK_EQ(enter.symbol, std::string("_Z5scalePffi"));
    CHECK_EQ(driver_enter.domain, CUPTI_CB_DOMAIN_DRIVER_API);
    CHECK_EQ(driver_enter.function, std::string("cuLaunchKernel"));
    CHECK_EQ(driver_enter.cbid, static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    CHECK_EQ(driver_enter.launch_grid_x, 4u);
    CHECK_EQ(driver_enter.symbol, std::string("_Z5scalePffi"));
    CHECK_EQ(driver_exit.function, std::string("cuLaunchKernel"));
    CHECK_EQ(driver_exit.site, CUPTI_API_EXIT);
    CHECK_EQ(driver_exit.result, 0);
    CHECK_EQ(exit.function, std::string("cudaLaunchKernel"));
    CHECK_EQ(exit.site, CUPTI_API_EXIT);
    CHECK_EQ(exit.result, 0);
    // Ids: one per call, the nested one newer; correlationData: one slot per call.
    CHECK_EQ(exit.correlation_id, enter.correlation_id);
    CHECK_EQ(driver_exit.correlation_id, driver_enter.correlation_id);
    CHECK(driver_enter.correlation_id > enter.correlation_id);
    CHECK_EQ(exit.correlation_data, enter.correlation_data);
    CHECK_EQ(exit.correlation_data_value, static_cast<uint64_t>(enter.correlation_id));
    CHECK(driver_enter.correlation_data != enter.correlation_data);
    CHECK_EQ(driver_exit.correlation_data_value,
             static_cast<uint64_t>(driver_enter.correlation_id));
    CHECK(enter.context != nullptr);
    CHECK_EQ(driver_enter.context, enter.context);
    CHECK_EQ(enter.context_uid, 1u);
  }

  // cudaDeviceSynchronize waits in the driver's cuCtxSynchronize.
  const size_t sync = FindEvent(events, "cudaDeviceSynchronize", CUPTI_API_ENTER);
  CHECK(sync + 3 < events.size());
  if (sync + 3 < events.size()) {
    CHECK_EQ(events[sync + 1].function, std::string("cuCtxSynchronize"));
    CHECK_EQ(events[sync + 1].site, CUPTI_API_ENTER);
    CHECK_EQ(events[sync + 2].function, std::string("cuCtxSynchronize"));
    CHECK_EQ(events[sync + 3].function, std::string("cudaDeviceSynchronize"));
    CHECK_EQ(events[sync + 3].site, CUPTI_API_EXIT);
  }

  // Disabling one callback silences that call only.
  CHECK_EQ(cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                               CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020),
           CUPTI_SUCCESS);
  CHECK_EQ(cudaFree(data), cudaSuccess);
  int device = -1;
  CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
  const std::vector<Event> later = TakeEvents();
  CHECK_EQ(FindEvent(later, "cudaFree", CUPTI_API_ENTER), later.size());
  CHECK(FindEvent(later, "cudaGetDevice", CUPTI_API_ENTER) < later.size());

  // The slot frees up on unsubscribe.
  CHECK_EQ(cuptiUnsubscribe(subscriber), CUPTI_SUCCESS);
  CHECK_EQ(cuptiUnsubscribe(subscriber), CUPTI_ERROR_INVALID_PARAMETER);
  CHECK_EQ(Subscribe(&second), CUPTI_SUCCESS);
}

}  // namespace fake_check
