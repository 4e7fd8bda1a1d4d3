#include "collector/process/recorder.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/queue_records.h"
#include "collector/queues/thread_state.h"

namespace gprof {

std::atomic<bool> g_recording{false};
std::atomic<bool> g_fast_record{false};
std::atomic<bool> g_fast_launch{false};
constinit thread_local ThreadState t_thread{};

void refresh_fast_launch() {
  g_fast_launch.store(fast_record() && !process_state().external_correlation.load(),
                      std::memory_order_release);
}

void wake_writer() {
  ProcessState& p = process_state();
  if (p.wake_pending.load(std::memory_order_relaxed) ||
      p.wake_pending.exchange(true, std::memory_order_acq_rel))
    return;
  // async-signal-safe and lock-free: a burst must not wait for the timer.
  if (sem_t* wake = p.writer_wake.load(std::memory_order_acquire)) sem_post(wake);
}

void* hold_give_up() {
  static char tag;
  return &tag;
}

void* hold_for_writer(void* (*take)(void*), void* context, bool count_timeout) {
  if (this_thread().is_writer) {
    if (count_timeout) losses().add(LossReason::kWaitTimeout);
    return nullptr;
  }
  // LTTng's blocking mode: bounded, and never once recording has stopped.
  const uint64_t start = clock_ns();
  const uint64_t limit = static_cast<uint64_t>(process_config().max_wait_ms) * 1000000u;
  for (uint32_t round = 0;; ++round) {
    if (round < 64) {
      sched_yield();
    } else {
      timespec pause{0, 50000};
      nanosleep(&pause, nullptr);
      wake_writer();
    }
    void* room = take(context);
    const uint64_t waited = clock_ns() - start;
    if (room == hold_give_up()) {
      holds().add(waited);
      if (count_timeout) losses().add(LossReason::kWaitTimeout);
      return nullptr;
    }
    if (room) {
      holds().add(waited);
      return room;
    }
    if (waited > limit || !recording_enabled()) {
      holds().add(waited);
      if (count_timeout) losses().add(LossReason::kWaitTimeout);
      return nullptr;
    }
  }
}

static_assert(kKeptBack >= ThreadState::kMaxDepth * sizeof(QPop),
              "room for every open range's pop");

namespace {

// How long a thread at the cap waits for chunks other threads are mapping.
constexpr uint64_t kGrowerWaitNs = 100'000'000;

// A chunk for the calling thread: from the pool, else per GPROF_ON_FULL.
Chunk* take_chunk(bool must_keep) {
  ProcessState& p = process_state();
  if (Chunk* chunk = p.chunks.take()) {
    wake_writer();  // so that it stocks the pool again
    return chunk;
  }
  wake_writer();
  // Below the cap the pool is only empty because the writer has not been
  // scheduled since it last stocked: the thread maps room itself.
  while (p.chunks.grow()) {
    holds().add_thread_map();
    if (Chunk* chunk = p.chunks.take()) return chunk;
  }
  // At the cap, the chunks other threads mapped at the same time may still be
  // free, or about to be: many threads that found the pool empty at once each
  // map a group, and reach the cap while most of what they mapped is unused.
  // A grower preempted between claiming its group and pushing it is waited
  // for, up to kGrowerWaitNs: a count of yields ran out on a loaded 2-core
  // machine (96 threads, CI) and dropped records with most chunks unused.
  const uint64_t give_up = clock_ns() + kGrowerWaitNs;
  for (;;) {
    if (Chunk* chunk = p.chunks.take()) return chunk;
    if (p.chunks.growing() == 0 || clock_ns() > give_up) break;
    sched_yield();
  }
  const Config& config = process_config();
  if (config.on_full == OnFull::kDrop && !must_keep) {
    losses().add(LossReason::kRingFull);
    return nullptr;
  }
  // Held until the writer has read a chunk and given it back.
  return static_cast<Chunk*>(hold_for_writer(
      [](void* pool) -> void* { return static_cast<ChunkPool*>(pool)->take(); }, &p.chunks));
}

}  // namespace

void orphan_thread_queue(void* queue) {
  // Later records of this thread (another key's destructor may still call
  // CUDA) claim a new queue: this one has a single producer until it is freed.
  ThreadState& t = this_thread();
  t.cursor = t.end = nullptr;
  t.chunk = nullptr;
  t.queue = nullptr;
  ThreadQueues::orphan(static_cast<ThreadQueue*>(queue));
}

namespace {

// The thread's first record: a chunk first (per GPROF_ON_FULL, counted by
// take_chunk when there is none), then a queue, so that a failure leaves no
// claimed queue behind. Every failure is counted once.
bool attach(ThreadState& t, bool must_keep) {
  ProcessState& p = process_state();
  if (!start_writer_once()) {
    losses().add(LossReason::kNoRing);
    return false;
  }
  Chunk* chunk = take_chunk(must_keep);
  if (!chunk) return false;
  ThreadQueue* queue = p.queues.claim(static_cast<uint32_t>(syscall(SYS_gettid)));
  if (!queue) {
    p.chunks.give_back(chunk);
    losses().add(LossReason::kNoRing);
    return false;
  }
  t.queue = queue;
  t.chunk = chunk;
  t.cursor = chunk->data();
  t.end = chunk->data() + kChunkData - kKeptBack;
  queue->first.store(chunk, std::memory_order_release);
  pthread_setspecific(p.queue_key, queue);
  return true;
}

}  // namespace

char* reserve_slow(ThreadState& t, uint32_t size, bool must_keep) {
  if (t.queue == nullptr) return attach(t, must_keep) ? t.cursor : nullptr;
  if (must_keep && t.cursor + size <= t.chunk->data() + kChunkData) return t.cursor;
  Chunk* chunk = take_chunk(must_keep);
  if (!chunk) return nullptr;
  Chunk* full = t.chunk;
  // A record claimed but not yet published (a launch in progress) stays in
  // `full`: the writer reads up to it and waits there for it to finish.
  full->committed.store(t.cursor, std::memory_order_release);
  t.chunk = chunk;
  t.cursor = chunk->data();
  t.end = chunk->data() + kChunkData - kKeptBack;
  // After the last commit in `full`: the writer reads it to its end, then moves on.
  full->next.store(chunk, std::memory_order_release);
  return t.cursor;
}

void submit(const ApiRecord& r) {
  ThreadState& t = this_thread();
  if (api_fields(r.api) & kFieldLaunch) {
    QLaunch* q = reserve<QLaunch>(t);
    if (!q) return;
    fill_launch(q, static_cast<uint16_t>(r.api), false, r.result, r.start_ns, r.end_ns, r.stream,
                r.correlation, nullptr, r.kernel, r.shared_mem, r.grid, r.block);
    commit(t, sizeof(QLaunch));
    return;
  }
  QCall* q = reserve<QCall>(t);
  if (!q) return;
  q->type = QueueType::kCall;
  q->copy_kind = r.copy_kind;
  q->api = static_cast<uint16_t>(r.api);
  q->result = r.result;
  q->start = r.start_ns;
  q->end = r.end_ns;
  q->stream = r.stream;
  q->bytes = r.bytes;
  q->address = r.address;
  q->correlation = r.correlation;
  commit(t, sizeof(QCall));
}

namespace {

// The text and the event after it go in together, or neither does: room for
// both is reserved before the text is written.
bool put_text(ThreadState& t, const InlineText& in, uint32_t event_bytes, bool must_keep) {
  const uint32_t size = in.size < kMaxInlineText ? in.size : kMaxInlineText;
  const uint32_t bytes = sizeof(QText) + padded8(size) + event_bytes;
  char* p = t.cursor;
  if (reinterpret_cast<uintptr_t>(p) + bytes > reinterpret_cast<uintptr_t>(t.end))
    p = reserve_slow(t, bytes, must_keep);
  if (!p) return false;
  auto* text = reinterpret_cast<QText*>(p);
  text->type = QueueType::kText;
  text->string_class = static_cast<uint8_t>(StringClass::kNvtx);
  text->size = static_cast<uint16_t>(size);
  text->pad = 0;
  text->address = in.address;
  std::memcpy(p + sizeof(QText), in.text, size);
  commit(t, sizeof(QText) + padded8(size));
  return true;
}

}  // namespace

bool submit_text_push(const InlineText& in, uint64_t time) {
  ThreadState& t = this_thread();
  if (!put_text(t, in, sizeof(QPush), false)) return false;
  QPush* q = reserve<QPush>(t);
  if (!q) return false;
  q->type = QueueType::kPush;
  q->name = kInlineName;
  q->time = time;
  commit(t, sizeof(QPush));
  return true;
}

bool submit_range(const RangeEvent& e, const InlineText& inline_text, bool must_keep) {
  ThreadState& t = this_thread();
  if (inline_text.text && !put_text(t, inline_text, sizeof(QRange), must_keep)) return false;
  QRange* q = reserve<QRange>(t, must_keep);
  if (!q) return false;
  q->type = QueueType::kRange;
  q->op = e.op;
  q->name = e.name;
  q->time = e.time_ns;
  q->range_id = e.range_id;
  q->payload = e.payload;
  q->domain = e.domain;
  q->category = e.category;
  q->color = e.color;
  commit(t, sizeof(QRange));
  return true;
}

}  // namespace gprof
