// InitializeInjection: the CUDA driver calls it at cuInit when
// CUDA_INJECTION64_PATH names this library (the preload constructor sets it
// when unset). This is where CUPTI is set up, once, with CUDA initializing.
#include "collector/capture_window.h"
#include "collector/cupti_session.h"
#include "collector/process_state.h"
#include "collector/recorder.h"
#include "inject/cupti_handler.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  // Disabled, AT_SECURE, another process (GPROF_ONLY_PID) or a stopped fork
  // child. A capture window that is merely closed still needs CUPTI.
  if (!gprof::recording_enabled()) return 1;
  if (gprof::capture_needs_timer()) gprof::start_writer_once();
  gprof::CuptiSetup setup;
  setup.handler = gprof::inject::on_cupti_callback;
  setup.callbacks = gprof::inject::kCuptiCallbacks;
  setup.callback_sets = 2;
  gprof::start_cupti(setup);
  return 1;
}
