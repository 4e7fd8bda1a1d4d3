// The preload entry point. Minimal by rule (docs/architecture.md §2.6): read the
// configuration, register fork/exit handling, and point the CUDA driver's
// injection hook at this library so that CUPTI is set up at cuInit; no CUDA,
// no CUPTI, no thread here.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "collector/gpu/late_attach.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"

namespace gprof::inject {
void attach_late();         // injection.cc
void check_dlclose_hook();  // hooks_dl.cc
}  // namespace gprof::inject

namespace {

void claim_cuda_injection() {
  gprof::CuptiStatus& status = gprof::process_state().cupti;
  if (!gprof::process_config().cupti) {
    status.set_state(gprof::CuptiState::kCpuOnly);
    status.set_reason("GPROF_CUPTI=0");
    status.publish();
    return;
  }
  Dl_info self{};
  char own[PATH_MAX];
  if (!dladdr(reinterpret_cast<void*>(&claim_cuda_injection), &self) || !self.dli_fname ||
      !realpath(self.dli_fname, own)) {
    GPROF_WARN("cannot find libgprof.so's own path; GPU activity is not recorded");
    return;
  }
  const char* current = getenv("CUDA_INJECTION64_PATH");
  if (current == nullptr || *current == '\0') {
    setenv("CUDA_INJECTION64_PATH", own, 1);
    status.set_injection(own);
    status.publish();
    gprof::set_late_attach(gprof::inject::attach_late);
    return;
  }
  char theirs[PATH_MAX];
  status.set_injection(current);
  if (realpath(current, theirs) && strcmp(theirs, own) == 0) {
    status.publish();
    gprof::set_late_attach(gprof::inject::attach_late);
    return;
  }
  // Another tool (nsys, a sanitizer) owns the driver's only injection slot.
  status.set_reason(
      "CUDA_INJECTION64_PATH=%s belongs to another tool and was left alone; CUPTI was not set up",
      current);
  status.publish();
  GPROF_WARN(
      "CUDA_INJECTION64_PATH=%s belongs to another tool and is left alone; GPU activity "
      "is not recorded, CPU-side calls are",
      current);
}

// NVTX's header-only API loads the tool named by NVTX_INJECTION64_PATH at a
// program's first NVTX call; the same library serves both.
void claim_nvtx_injection() {
  Dl_info self{};
  char own[PATH_MAX];
  if (!dladdr(reinterpret_cast<void*>(&claim_nvtx_injection), &self) || !self.dli_fname ||
      !realpath(self.dli_fname, own))
    return;
  const char* current = getenv("NVTX_INJECTION64_PATH");
  if (current == nullptr || *current == '\0') {
    setenv("NVTX_INJECTION64_PATH", own, 1);
    return;
  }
  char theirs[PATH_MAX];
  if (realpath(current, theirs) && strcmp(theirs, own) == 0) return;
  GPROF_WARN(
      "NVTX_INJECTION64_PATH=%s belongs to another tool and is left alone; NVTX ranges "
      "are not recorded",
      current);
}

__attribute__((constructor)) void gprof_preload_constructor() {
  gprof::initialize_process();
  gprof::inject::check_dlclose_hook();
  if (gprof::recording_enabled()) {
    claim_cuda_injection();
    claim_nvtx_injection();
  }
}

}  // namespace
