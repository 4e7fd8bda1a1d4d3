// InitializeInjection: the CUDA driver calls it at cuInit when
// CUDA_INJECTION64_PATH names this library (the preload constructor sets it
// when unset). This is where CUPTI is set up, once, with CUDA initializing.
#include "collector/cupti_session.h"
#include "collector/recorder.h"
#include "inject/cupti_handler.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (!gprof::recording()) return 1;  // disabled, AT_SECURE, or a stopped fork child
  gprof::CuptiSetup setup;
  setup.handler = gprof::inject::on_cupti_callback;
  setup.callbacks = gprof::inject::kCuptiCallbacks;
  setup.callback_sets = 2;
  gprof::start_cupti(setup);
  return 1;
}
