// The preload entry point. Minimal by rule (DESIGN.md §2.7): read the
// configuration and register fork/exit handling; no CUDA, no thread.
#include "collector/recorder.h"

namespace {

__attribute__((constructor)) void gprof_preload_constructor() {
  gprof::initialize_process();
}

}  // namespace
