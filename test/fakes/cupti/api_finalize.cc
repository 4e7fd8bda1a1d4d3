// cuptiFinalize: CUPTI detaches from the process. Everything the client set up is undone, so that
// a later session starts as the first did: no subscriber, no kinds, the default clock, no
// buffers (none is handed back: as observed with CUPTI 13.0.1, activity_buffers.cc).
#include "activity_buffers.h"
#include "activity_kinds.h"
#include "cupti_abi.h"
#include "flush_thread.h"
#include "subscriber.h"
#include "timestamps.h"

extern "C" CUptiResult CUPTIAPI cuptiFinalize(void) {
  gprof_fake_cupti::ResetKinds();
  gprof_fake_cupti::DropSubscriber();
  gprof_fake_cupti::SetTimestampCallback(nullptr);
  gprof_fake_cupti::SetFlushPeriod(0, nullptr);
  gprof_fake_cupti::FinalizeBuffers();
  return CUPTI_SUCCESS;
}
