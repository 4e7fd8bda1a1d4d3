#include "collector/recorder.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "collector/loss_counters.h"
#include "collector/process_state.h"
#include "collector/ring_pool.h"
#include "collector/writer.h"

namespace gprof {

std::atomic<bool> g_recording{false};

namespace {

// Global-dynamic TLS (the default for a PIC shared object): the library may
// be dlopen'ed, so initial-exec is not allowed (DESIGN.md §2.5).
thread_local Ring* t_ring = nullptr;
thread_local uint32_t t_generation = 0;
thread_local uint32_t t_tid = 0;

Ring* attach_thread() {
  ProcessState& p = process_state();
  if (t_ring && t_generation != p.generation.load(std::memory_order_acquire)) {
    t_ring = nullptr;  // a ring of the parent, before fork: not ours to touch
  }
  if (!t_ring) {
    if (!start_writer_once()) return nullptr;
    t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
    t_ring = p.rings.claim(t_tid);
    t_generation = p.generation.load(std::memory_order_acquire);
    if (t_ring) pthread_setspecific(p.ring_key, t_ring);
  }
  return t_ring;
}

}  // namespace

void submit(ApiRecord& record) {
  Ring* ring = t_ring;
  if (__builtin_expect(ring == nullptr || t_generation != process_state().generation.load(
                                                              std::memory_order_relaxed),
                       0)) {
    ring = attach_thread();
    if (!ring) {
      losses().add(LossReason::kNoRing);
      return;
    }
  }
  record.tid = t_tid;
  record.kind = RecordKind::kApi;
  if (!ring->push(record)) losses().add(LossReason::kRingFull);
}

KernelRegistry& kernel_registry() {
  return process_state().kernels;
}
const Config& config() {
  return mutable_config();
}

}  // namespace gprof
