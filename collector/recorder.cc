#include "collector/recorder.h"

#include <pthread.h>
#include <semaphore.h>
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
// be dlopen'ed, so initial-exec is not allowed (DESIGN.md §2.5). One struct,
// so the hot path resolves one TLS address.
struct ThreadSlot {
  Ring* ring;
  uint32_t generation;
  uint32_t tid;
};
thread_local ThreadSlot t_slot{nullptr, 0, 0};

Ring* attach_thread(ThreadSlot& slot) {
  ProcessState& p = process_state();
  if (slot.ring && slot.generation != p.generation.load(std::memory_order_acquire)) {
    slot.ring = nullptr;  // a ring of the parent, before fork: not ours to touch
  }
  if (!slot.ring) {
    if (!start_writer_once()) return nullptr;
    slot.tid = static_cast<uint32_t>(syscall(SYS_gettid));
    slot.ring = p.rings.claim(slot.tid);
    slot.generation = p.generation.load(std::memory_order_acquire);
    if (slot.ring) pthread_setspecific(p.ring_key, slot.ring);
  }
  return slot.ring;
}

}  // namespace

namespace {

template <typename Record>
void push_record(Record& record, RecordKind kind) {
  ThreadSlot& slot = t_slot;
  Ring* ring = slot.ring;
  if (__builtin_expect(ring == nullptr || slot.generation != process_state().generation.load(
                                                                 std::memory_order_relaxed),
                       0)) {
    ring = attach_thread(slot);
    if (!ring) {
      losses().add(LossReason::kNoRing);
      return;
    }
  }
  record.tid = slot.tid;
  record.kind = kind;
  Ring::Push pushed = ring->push(record);
  if (__builtin_expect(pushed != Ring::Push::kOk, 0)) {
    if (pushed == Ring::Push::kFull) {
      losses().add(LossReason::kRingFull);
    } else if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) {
      sem_post(wake);  // async-signal-safe, no lock: a burst must not wait for the timer
    }
  }
}

}  // namespace

void submit(ApiRecord& record) {
  push_record(record, RecordKind::kApi);
}

void submit_range(RangeEvent& event) {
  push_record(event, RecordKind::kRange);
}

StringTable& string_table() {
  return process_state().strings;
}

KernelRegistry& kernel_registry() {
  return process_state().kernels;
}
}  // namespace gprof
