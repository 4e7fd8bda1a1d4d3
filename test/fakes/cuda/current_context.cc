#include "current_context.h"

#include "../cudart/fake_device_api.h"

namespace gprof_fake_driver {
namespace {

enum class Binding { kFollowRuntime, kNone, kSet };

thread_local Binding t_binding = Binding::kFollowRuntime;

}  // namespace

CUcontext CurrentContext() {
  if (t_binding == Binding::kNone) return nullptr;
  if (t_binding == Binding::kFollowRuntime && gprof_fake_driver_initialized() == 0) return nullptr;
  return static_cast<CUcontext>(gprof_fake_primary_context(gprof_fake_current_device()));
}

CUresult SetCurrentContext(CUcontext context) {
  if (context == nullptr) {
    t_binding = Binding::kNone;
    return CUDA_SUCCESS;
  }
  const int device = gprof_fake_context_device(context);
  if (device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  gprof_fake_set_current_device(device);
  t_binding = Binding::kSet;
  return CUDA_SUCCESS;
}

}  // namespace gprof_fake_driver
