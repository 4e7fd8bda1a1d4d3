// InitializeInjection: the CUDA driver calls it at cuInit when
// CUDA_INJECTION64_PATH names this library (the preload constructor sets it
// when unset). This is where CUPTI is set up, once, with CUDA initializing.
#include "collector/gpu/cupti_session.h"
#include "collector/gpu/late_attach.h"
#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "inject/cupti_handler.h"

namespace gprof::inject {

void start_cupti_session(const char* attach) {
  CuptiSetup setup;
  setup.handler = on_cupti_callback;
  setup.callbacks = kCuptiCallbacks;
  setup.callback_sets = 2;
  setup.attach = attach;
  start_cupti(setup);
}

// CUDA was initialized before our constructor (collector/gpu/late_attach.h): the
// writer calls this once it finds CUDA running without us.
void attach_late() {
  if (recording_enabled()) start_cupti_session("late");
}

}  // namespace gprof::inject

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  gprof::note_injection_called();
  // Disabled, AT_SECURE, another process (GPROF_ONLY_PID) or a stopped fork
  // child. A capture window that is merely closed still needs CUPTI.
  if (!gprof::recording_enabled()) return 1;
  if (gprof::capture_needs_timer()) gprof::start_writer_once();
  gprof::inject::start_cupti_session("injection");
  return 1;
}
