#include "collector/gpu/cupti_session.h"

#include <stdlib.h>

#include <new>

#include "collector/gpu/device_snapshot.h"
#include "collector/gpu/session/session.h"
#include "collector/process/process_state.h"

namespace gprof {

namespace cupti_session {
Session* g_session = nullptr;
}  // namespace cupti_session

namespace {

using cupti_session::g_foreign_buffers;
using cupti_session::g_session;
using cupti_session::Session;

constinit std::atomic<bool> g_started{false};
alignas(Session) unsigned char g_session_storage[sizeof(Session)];

// Registered at cuInit, so it runs before CUDA's own exit handlers (they run
// in reverse): the last moment the driver answers.
void before_cuda_exit() {
  snapshot_devices_before_cuda_exit();
  // Null in a fork child, which must not touch the parent's CUPTI state.
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->flush_at_exit();
}

}  // namespace

void start_cupti(const CuptiSetup& setup) {
  if (g_started.exchange(true)) return;
  g_session = new (g_session_storage) Session();
  g_session->start(setup);
  // After cuInit, so before CUDA's own exit handlers (they run in reverse);
  // CPU-only too, for the devices. Not at_quick_exit: quick_exit is how
  // signal handlers end a program, and a forced flush there may wait for a
  // lock the interrupted thread holds inside CUPTI, unbounded. The writer's
  // bounded final pass flushes instead.
  atexit(before_cuda_exit);
}

void foreign_cupti_before(ForeignCall call, CUpti_TimestampCallbackFunc clock) {
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->foreign_before(call, clock);
}

void foreign_cupti_after(ForeignCall call, CUptiResult result, CUpti_ActivityKind kind) {
  if (result == CUPTI_SUCCESS &&
      (call == ForeignCall::kRegisterCallbacks || call == ForeignCall::kFinalize))
    g_foreign_buffers.store(call == ForeignCall::kRegisterCallbacks, std::memory_order_release);
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->foreign_after(call, result, kind);
}

uint64_t push_external_correlation() {
  return g_session ? g_session->push_external() : 0;
}

void pop_external_correlation() {
  if (g_session) g_session->pop_external();
}

}  // namespace gprof
