#include "collector/output/writer.h"

#include "formats/framing.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <new>

#include "collector/gpu/device_snapshot.h"
#include "collector/gpu/driver_probe.h"
#include "collector/gpu/late_attach.h"
#include "collector/interning/readonly_text.h"
#include "collector/interning/torch_message.h"
#include "collector/output/output_file.h"
#include "collector/output/output_path.h"
#include "collector/output/process_info.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/queue_records.h"
#include "collector/queues/thread_state.h"
#include "formats/api_ids.h"

namespace gprof {
namespace {

// Per queue per pass: keeps one frame well under kMaxFramePayload.
constexpr uint64_t kMaxRecordsPerQueuePass = 65536;
// Encoded records per frame before a pass stops taking more queues (one
// queue's share, 65,536 records, and the GPU records come on top).
constexpr size_t kFrameBudgetBytes = 16u << 20;
// Distinct texts the writer interns for a full string table; beyond, each
// event's text gets an entry of its own.
constexpr size_t kMaxInlineNames = 1u << 20;

timespec deadline_after_ms(uint32_t ms) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += static_cast<long>(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

const char* fork_policy_name(ForkPolicy policy) {
  return policy == ForkPolicy::kStop ? "stop" : "follow";
}

}  // namespace

Writer::Writer(const Config& config, ChunkPool& chunks, ThreadQueues& queues,
               KernelRegistry& kernels, StringTable& strings)
    : config_(config),
      chunks_(chunks),
      queues_(queues),
      kernels_(kernels),
      strings_table_(strings),
      ticks_(g_timestamp_source) {
  sem_init(&wake_, 0, 0);
  sem_init(&done_, 0, 0);
}

bool Writer::start() {
  // The thread must never take a signal meant for the host program.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, &Writer::thread_main, this);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    GPROF_WARN("cannot start the writer thread (%s); this process is not profiled", strerror(rc));
    return false;
  }
  return true;
}

void* Writer::thread_main(void* self) {
  pthread_setname_np(pthread_self(), "gprof-writer");
  static_cast<Writer*>(self)->run();
  return nullptr;
}

bool Writer::stop_and_wait(uint32_t timeout_ms) {
  stop_requested_.store(true, std::memory_order_release);
  sem_post(&wake_);
  timespec deadline = deadline_after_ms(timeout_ms);
  while (!finished_.load(std::memory_order_acquire)) {
    if (sem_clockwait(&done_, CLOCK_MONOTONIC, &deadline) == 0) break;
    if (errno == ETIMEDOUT) return finished_.load(std::memory_order_acquire);
  }
  return true;
}

void Writer::abandon_in_child() {
  close_output();
}

void Writer::run() {
  this_thread().is_writer = true;
  ProcessState& p = process_state();
  ticks_.add(p.start_pair);
  last_pair_ns_ = p.start_pair.ns;
  stock_chunks();
  if (open_file()) {
    write_header();
    while (!stop_requested_.load(std::memory_order_acquire)) {
      if (!backlog_) {
        timespec deadline = deadline_after_ms(config_.flush_interval_ms);
        sem_clockwait(&wake_, CLOCK_MONOTONIC, &deadline);
      }
      if (config_.writer_delay_ms) {
        timespec pause{config_.writer_delay_ms / 1000,
                       static_cast<long>(config_.writer_delay_ms % 1000) * 1000000L};
        nanosleep(&pause, nullptr);
      }
      p.wake_pending.store(false, std::memory_order_release);
      poll_late_attach(clock_ns());
      poll_devices(clock_ns(), false);
      drain_once(kMaxRecordsPerQueuePass);
    }
    // Before the final drain, while finish_process still waits for us: past
    // its timeout, exit goes on to tear libcuda down.
    poll_devices(clock_ns(), true);
    // CUPTI's finished work now: without atexit (quick_exit) nothing else
    // flushed it, and the periodic poll may not be due.
    if (GpuSource* source = gpu_source()) source->poll_now(*this);
    // Bounded: other threads may keep recording while the process exits.
    calibrate(true);
    for (int pass = 0; pass < 64 && drain_once(kMaxRecordsPerQueuePass) > 0; ++pass) {
    }
    write_footer();
    close_output();
  }
  finished_.store(true, std::memory_order_release);
  sem_post(&done_);
}

bool Writer::open_file() {
  ProcessInfo& info = info_;
  collect_process_info(info);
  PathVariables vars;
  vars.pid = info.pid;
  vars.host = info.host;
  if (const char* rank = rank_from_environment(secure_getenv)) vars.rank = rank;
  vars.start_time = info.start_time;
  vars.getenv_fn = secure_getenv;
  char expanded[sizeof path_];
  if (!expand_output_pattern(config_.output_pattern, vars, expanded, sizeof expanded)) {
    GPROF_WARN(
        "GPROF_OUTPUT='%s' is not a valid pattern (%%p %%h %%r %%t %%q{VAR} %%%%); "
        "using gprof-%%p.gprof",
        config_.output_pattern);
    snprintf(expanded, sizeof expanded, "gprof-%u.gprof", info.pid);
  }
  fd_ = create_output_file(expanded, config_.file_mode, path_, sizeof path_);
  if (fd_ < 0) {
    GPROF_WARN("cannot create '%s': %s; this process is not profiled", expanded, strerror(errno));
    stop_recording();
    return false;
  }
  fd_ = move_to_high_descriptor(fd_);
  identify(fd_, identity_);
  // Reopened by this path if the program takes the descriptor away: absolute,
  // since daemons chdir("/") before they close every descriptor.
  absolute_path(path_, reopen_path_, sizeof reopen_path_);
  GPROF_INFO("recording to %s", path_);
  return true;
}

void Writer::write_header() {
  const ProcessInfo& info = info_;
  char max_memory[32], max_wait[16], file_mode[8], flush_timeout[16];
  snprintf(max_memory, sizeof max_memory, "%zu", chunks_.max_bytes());
  snprintf(max_wait, sizeof max_wait, "%u", config_.max_wait_ms);
  snprintf(file_mode, sizeof file_mode, "%04o", config_.file_mode);
  snprintf(flush_timeout, sizeof flush_timeout, "%u", config_.flush_timeout_ms);
  // Tools drop GPU work whose call was outside a capture window: it says so.
  char capture[Config::kMaxName * 2 + 16];
  switch (config_.capture_mode) {
    case CaptureMode::kAll:
      snprintf(capture, sizeof capture, "all");
      break;
    case CaptureMode::kProfilerApi:
      snprintf(capture, sizeof capture, "cudaProfilerApi");
      break;
    case CaptureMode::kNvtx:
      snprintf(capture, sizeof capture, "nvtx:%s%s%s", config_.capture_name,
               config_.capture_domain[0] ? "@" : "", config_.capture_domain);
      break;
  }
  char window[96];
  snprintf(window, sizeof window, "delay_ms=%llu duration_ms=%llu skip_steps=%u steps=%u",
           static_cast<unsigned long long>(config_.delay_ms),
           static_cast<unsigned long long>(config_.duration_ms), config_.skip_steps, config_.steps);
  const KeyValue entries[] = {
      {"output", config_.output_pattern},
      {"max_memory", max_memory},
      {"on_full", config_.on_full == OnFull::kDrop ? "drop" : "wait"},
      {"max_wait_ms", max_wait},
      {"timestamps", timestamp_source_name(g_timestamp_source)},
      {"file_mode", file_mode},
      {"fork", fork_policy_name(config_.fork_policy)},
      {"flush_timeout_ms", flush_timeout},
      {"capture", capture},
      {"capture_window", window},
  };
  HeaderFields h;
  h.pid = info.pid;
  h.ppid = info.ppid;
  h.host = info.host;
  h.argv = info.argv;
  h.argc = info.argc;
  h.exe = info.exe;
  // When gprof was loaded, not when the writer got to this: a program that
  // ends soon after a long cuInit (a static runtime, whose first record comes
  // after it) had a header 176 us before its footer and 134 ms of records
  // before it (H200, 2026-11-27).
  const uint64_t now = clock_ns();
  const uint64_t loaded = process_state().start_pair.ns;
  h.start_clock_ns = loaded != 0 && loaded <= now ? loaded : now;
  h.clock_offset_to_wall_ns = clock_offset_to_wall_ns();
  h.start_wall_ns =
      static_cast<uint64_t>(static_cast<int64_t>(h.start_clock_ns) + h.clock_offset_to_wall_ns);
  h.clock_name = kClockName;
  h.cuda_runtime_version = info.cuda_runtime_version;
  h.cuda_driver_version = info.cuda_driver_version;
  if (const char* rank = rank_from_environment(secure_getenv)) h.rank = rank;
  h.gprof_version = GPROF_VERSION;
  h.config = entries;
  h.config_count = sizeof entries / sizeof entries[0];
  const bool windowed =
      config_.delay_ms || config_.duration_ms || config_.skip_steps || config_.steps;
  if (!windowed) --h.config_count;  // capture_window is last

  ByteBuffer preamble;
  encode_preamble(preamble);
  write_bytes(preamble.data(), preamble.size());
  frame_.clear();
  encode_header(frame_, h);
  write_frame(frame_);
}

void Writer::calibrate(bool force) {
  uint64_t now = clock_ns();
  const uint64_t spacing =
      ticks_.ready() ? TickConverter::kMinSpacingNs : TickConverter::kMinFirstSpacingNs;
  if (now - last_pair_ns_ < spacing) {
    if (!force) return;
    if (!ticks_.ready()) {
      // A process that ends within a millisecond of its start still gets a rate.
      const uint64_t rest = spacing - (now - last_pair_ns_);
      timespec pause{0, static_cast<long>(rest)};
      nanosleep(&pause, nullptr);
      now = clock_ns();
    }
  }
  ticks_.add(take_calibration_pair());
  last_pair_ns_ = now;
}

void Writer::stock_chunks() {
  // Threads held, or a pool found below a quarter of its reserve, double the
  // reserve: a bursty program gets room before it needs it.
  const uint64_t held = holds().holds();
  if ((held != holds_seen_ || chunks_.free_chunks() < stock_target_ / 4) &&
      stock_target_ < ChunkPool::kMaxChunks / 2)
    stock_target_ *= 2;
  holds_seen_ = held;
  chunks_.stock(stock_target_);
}

void Writer::top_up() {
  // Between chunks of a long drain: recording threads must not wait for the
  // end of a pass to find memory.
  if (chunks_.free_chunks() < stock_target_ / 2) stock_chunks();
}

// What the takeover watchdog needs to know of the calls (takeover_watchdog.h).
void Writer::note_call(const ApiRecord& r) {
  if (r.result != 0) return;
  const ApiInfo* info = api_info(r.api);
  if (info == nullptr) return;
  switch (info->category) {
    case ApiCategory::kLaunch:
    case ApiCategory::kCopy:
    case ApiCategory::kSet:
      if (drained_.launches++ == 0 || r.start_ns < drained_.first_launch_ns)
        drained_.first_launch_ns = r.start_ns;
      break;
    case ApiCategory::kSync:
      if (r.api == ApiId::cudaStreamWaitEvent || r.api == ApiId::cudaStreamWaitEvent_ptsz)
        break;  // the device waits, not the host
      if (r.end_ns > drained_.wait_end_ns) drained_.wait_end_ns = r.end_ns;
      if ((r.api == ApiId::cudaDeviceSynchronize || r.api == ApiId::cuCtxSynchronize) &&
          r.end_ns > drained_.device_wait_end_ns)
        drained_.device_wait_end_ns = r.end_ns;
      break;
    default:
      break;
  }
}

uint64_t Writer::to_ns(ThreadQueue& queue, uint64_t ticks) {
  // Keeps each thread's times in order where a new calibration segment
  // starts a few ns below the previous one's extension.
  uint64_t ns = ticks_.to_ns(ticks);
  if (ns < queue.last_ns) ns = queue.last_ns;
  queue.last_ns = ns;
  return ns;
}

uint32_t Writer::decode(ThreadQueue& q, const char* at) {
  switch (static_cast<QueueType>(static_cast<uint8_t>(*at))) {
    case QueueType::kCall: {
      QCall c;
      std::memcpy(&c, at, sizeof c);
      ApiRecord r{};
      r.kind = RecordKind::kApi;
      r.api = static_cast<ApiId>(c.api);
      r.copy_kind = c.copy_kind & kLowBits;
      r.runtime = runtime_of(c.copy_kind);
      r.result = c.result;
      r.start_ns = to_ns(q, c.start);
      r.end_ns = c.end >= c.start ? r.start_ns + (ticks_.to_ns(c.end) - ticks_.to_ns(c.start))
                                  : r.start_ns;
      r.stream = c.stream;
      r.bytes = c.bytes;
      r.address = c.address;
      r.correlation = c.correlation;
      note_call(r);
      calls_.add(r);
      return sizeof c;
    }
    case QueueType::kLaunch: {
      QLaunch l;
      std::memcpy(&l, at, sizeof l);
      ApiRecord r{};
      r.kind = RecordKind::kApi;
      r.api = static_cast<ApiId>(l.api);
      r.result = l.result;
      r.start_ns = to_ns(q, l.start);
      r.end_ns = l.end >= l.start ? r.start_ns + (ticks_.to_ns(l.end) - ticks_.to_ns(l.start))
                                  : r.start_ns;
      r.stream = l.stream;
      r.correlation = l.correlation;
      r.runtime = runtime_of(l.by_handle);
      r.kernel = l.kernel ? l.kernel : kernels_.id_for_handle(l.function);
      r.grid = l.grid;
      r.block = l.block;
      r.shared_mem = l.shared_mem;
      note_call(r);
      calls_.add(r);
      return sizeof l;
    }
    case QueueType::kPush: {
      QPush p;
      std::memcpy(&p, at, sizeof p);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = RangeOp::kPush;
      e.time_ns = to_ns(q, p.time);
      if (p.name == kInlineName) {
        e.name = q.inline_name;
        e.seq = q.inline_seq;
        e.op_id = q.inline_op_id;
      } else {
        e.name = p.name;
      }
      ranges_.add(e);
      return sizeof p;
    }
    case QueueType::kPop: {
      QPop p;
      std::memcpy(&p, at, sizeof p);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = RangeOp::kPop;
      e.time_ns = to_ns(q, p.time);
      e.domain = p.domain;
      ranges_.add(e);
      return sizeof p;
    }
    case QueueType::kRange: {
      QRange g;
      std::memcpy(&g, at, sizeof g);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = g.op;
      e.time_ns = to_ns(q, g.time);
      e.name = g.name;
      if (g.name == kInlineName) {  // emit_nvtx's numbers come with the text
        e.name = q.inline_name;
        e.seq = q.inline_seq;
        e.op_id = q.inline_op_id;
      }
      e.range_id = g.range_id;
      e.payload = g.payload;
      e.domain = g.domain;
      e.category = g.category;
      e.color = g.color;
      ranges_.add(e);
      return sizeof g;
    }
    case QueueType::kText: {
      QText t;
      std::memcpy(&t, at, sizeof t);
      name_text(q, at + sizeof t, t);
      return sizeof t + padded8(t.size);
    }
    case QueueType::kPendingLaunch:
    case QueueType::kPendingCall:
      break;  // drain_queue's to handle
  }
  return 0;
}

// A name the recording thread sent as text (QText). emit_nvtx's unique
// messages are split here, their stable part interned and the numbers kept
// for the event after it. Any other message is interned as it is, and its
// address remembered so that the thread finds it there next time without
// sending it again (StringTable::cached: a literal by its address alone once
// its object is known read-only, other text compared with the stored copy).
void Writer::name_text(ThreadQueue& q, const char* text, const QText& t) {
  q.inline_seq = 0;
  q.inline_op_id = 0;
  const auto cls = static_cast<StringClass>(t.string_class);
  TorchMessage m;
  if (cls == StringClass::kNvtx && split_torch_message(text, t.size, split_, m)) {
    q.inline_seq = m.seq;
    q.inline_op_id = m.op_id;
    q.inline_name = intern_text(split_, static_cast<uint32_t>(m.size), cls, 0);
    return;
  }
  q.inline_name = intern_text(text, t.size, cls, t.address);
}

uint32_t Writer::intern_text(const char* text, uint32_t size, StringClass cls, uint64_t address) {
  const uint32_t id = strings_table_.intern(text, size, cls);
  if (id == kInlineName) return intern_inline(text, size, static_cast<uint8_t>(cls));
  // A literal is trusted by its address alone once remembered: only while it
  // still holds this text (its object may have been unloaded since).
  const char* at = reinterpret_cast<const char*>(address);
  if (at && size < kMaxInlineText &&
      (!in_readonly_segment(at, size + 1) || (std::memcmp(at, text, size) == 0 && at[size] == 0)))
    strings_table_.remember(at, size, id);
  return id;
}

uint32_t Writer::intern_inline(const char* text, uint32_t size, uint8_t string_class) {
  const std::string_view key(text, size);
  if (auto it = inline_names_.find(key); it != inline_names_.end()) return it->second;
  const uint32_t id = next_inline_name_++;
  try {
    if (inline_names_.size() < kMaxInlineNames) inline_names_.emplace(std::string(key), id);
  } catch (const std::bad_alloc&) {
    // Not remembered: the next event with this text gets another entry.
  }
  encode_string(inline_strings_, id, static_cast<StringKind>(string_class), key);
  return id;
}

uint64_t Writer::drain_queue(ThreadQueue& q, uint64_t max, uint64_t& ranges) {
  const int state = q.state.load(std::memory_order_acquire);
  if (state == static_cast<int>(QueueState::kFree)) return 0;
  if (q.read_chunk == nullptr) {
    q.read_chunk = q.first.exchange(nullptr, std::memory_order_acq_rel);
    if (q.read_chunk == nullptr) return 0;  // claimed, its first chunk not yet published
    q.read_offset = 0;
    q.inline_name = 0;
    q.inline_seq = 0;
    q.inline_op_id = 0;
    q.last_ns = 0;
  }
  const uint32_t tid = q.tid.load(std::memory_order_relaxed);
  calls_.begin(tid);
  ranges_.begin(tid);
  uint64_t n = 0;
  bool drained = false;
  bool pending = false;
  for (;;) {
    Chunk* chunk = q.read_chunk;
    const char* data = chunk->data();
    auto published = [&] {
      return static_cast<uint32_t>(chunk->committed.load(std::memory_order_acquire) - data);
    };
    uint32_t committed = published();
    Chunk* next = chunk->next.load(std::memory_order_acquire);
    if (next) committed = published();  // the last commit
    while (q.read_offset < committed && n < max) {
      const uint8_t type =
          __atomic_load_n(reinterpret_cast<const uint8_t*>(data + q.read_offset), __ATOMIC_ACQUIRE);
      if (type == static_cast<uint8_t>(QueueType::kPendingLaunch) ||
          type == static_cast<uint8_t>(QueueType::kPendingCall)) {
        // Its thread is still inside the call. It finishes the record in
        // place; one that never will (its thread gone, or the last drain) is
        // lost, and counted.
        if (state != static_cast<int>(QueueState::kOrphaned) &&
            !stop_requested_.load(std::memory_order_acquire)) {
          pending = true;
          break;
        }
        losses().add(LossReason::kInFlightAtExit);
        q.read_offset += type == static_cast<uint8_t>(QueueType::kPendingLaunch) ? sizeof(QLaunch)
                                                                                 : sizeof(QCall);
        continue;
      }
      const uint32_t size = decode(q, data + q.read_offset);
      if (size == 0) {
        // Not a record gprof wrote: the rest of this chunk cannot be trusted.
        losses().add(LossReason::kEncodeError);
        q.read_offset = committed;
        break;
      }
      // A name stored with the event is part of the record after it.
      if (static_cast<QueueType>(data[q.read_offset]) != QueueType::kText) ++n;
      q.read_offset += size;
    }
    if (q.read_offset < committed) break;  // this pass's share is done
    if (!next) {
      drained = true;
      break;
    }
    q.read_chunk = next;
    q.read_offset = 0;
    chunks_.give_back(chunk);
    top_up();
  }
  ranges += ranges_.count();
  if (calls_.count() > 0) calls_.finish(batches_);
  if (ranges_.count() > 0) ranges_.finish(batches_);
  if (!drained) {
    // Waiting for a call to return is no backlog: the next pass comes on time.
    if (!pending) backlog_ = true;
  } else if (state == static_cast<int>(QueueState::kOrphaned)) {
    // Its thread has exited and every record it made has been read.
    chunks_.give_back(q.read_chunk);
    q.read_chunk = nullptr;
    q.state.store(static_cast<int>(QueueState::kFree), std::memory_order_release);
  }
  return n;
}

void Writer::emit_names() {
  // Kernel and NVTX names are read after the records: a record is written
  // only after its name's entry is filled, so every id drained is covered.
  // Entries being filled by another thread are left for a later pass.
  const uint32_t kernels_end = kernels_.reserved();
  if (kernel_emitted_.size() < kernels_end) kernel_emitted_.resize(kernels_end, false);
  for (uint32_t id = names_emitted_; id < kernels_end; ++id) {
    if (kernel_emitted_[id]) continue;
    if (!kernels_.ready(id)) continue;
    if (const char* name = kernels_.name(id))
      encode_string(strings_, id, StringKind::kKernel, name);
    kernel_emitted_[id] = true;
  }
  while (names_emitted_ < kernels_end && kernel_emitted_[names_emitted_]) ++names_emitted_;

  const uint32_t strings_end = strings_table_.reserved();
  if (string_emitted_.size() < strings_end) string_emitted_.resize(strings_end, false);
  for (uint32_t i = strings_emitted_; i < strings_end; ++i) {
    if (string_emitted_[i]) continue;
    const uint32_t id = StringTable::kFirstId + i;
    const char* text = strings_table_.text(id);
    if (!text) continue;
    const auto kind = static_cast<StringKind>(strings_table_.string_class(id));
    encode_string(strings_, id, kind, text);
    string_emitted_[i] = true;
  }
  while (strings_emitted_ < strings_end && string_emitted_[strings_emitted_]) ++strings_emitted_;
}

uint64_t Writer::drain_once(uint64_t max_per_queue) {
  batches_.clear();
  inline_strings_.clear();
  backlog_ = false;
  uint64_t total = 0;
  uint64_t ranges = 0;
  ProcessState& p = process_state();
  calibrate(false);
  stock_chunks();
  // Until the TSC rate is known, records wait in their queues. A frame stays
  // far below the reader's kMaxFramePayload: past kFrameBudgetBytes the other
  // queues wait for the next pass, which starts one queue further on so that
  // busy threads early in the list cannot starve the others.
  if (ticks_.ready()) {
    uint32_t index = 0;
    const uint32_t first = pass_++;
    uint32_t queues = 0;
    queues_.for_each([&](ThreadQueue&) { ++queues; });
    const uint32_t start = queues ? first % queues : 0;
    for (int round = 0; round < 2; ++round) {
      index = 0;
      queues_.for_each([&](ThreadQueue& q) {
        const uint32_t i = index++;
        if ((round == 0) != (i >= start)) return;
        if (batches_.size() >= kFrameBudgetBytes) {
          backlog_ = true;
          return;
        }
        total += drain_queue(q, max_per_queue, ranges);
        top_up();
      });
    }
  } else {
    backlog_ = true;
  }
  capture_tick(clock_ns());
  gpu_strings_.clear();
  uint64_t gpu = 0;
  if (GpuSource* source = gpu_source()) {
    source->calls_drained(drained_);
    drained_ = {};
    source->poll(clock_ns(), *this);
    gpu = source->drain(*this);
  }
  if (gpu_.count() > 0) gpu_.finish(batches_);
  if (external_.count() > 0) external_.finish(batches_);
  const uint32_t transitions = capture_transitions(
      transitions_seen_,
      [](void* status, uint64_t ns, bool open) {
        static_cast<CuptiStatus*>(status)->window_changed(ns, open);
      },
      &p.cupti);
  if (transitions != transitions_seen_) {
    transitions_seen_ = transitions;
    p.cupti.publish();
  }
  status_.clear();
  p.cupti.encode_if_changed(status_, cupti_status_seen_);
  strings_.clear();
  emit_names();
  if (total == 0 && gpu == 0 && strings_.empty() && status_.empty() && inline_strings_.empty())
    return 0;
  frame_.clear();
  frame_.append(status_.data(), status_.size());
  frame_.append(strings_.data(), strings_.size());
  frame_.append(gpu_strings_.data(), gpu_strings_.size());
  frame_.append(inline_strings_.data(), inline_strings_.size());
  frame_.append(batches_.data(), batches_.size());
  if (frame_.failed() || strings_.failed() || batches_.failed() || gpu_strings_.failed() ||
      status_.failed() || inline_strings_.failed()) {
    losses().add(LossReason::kEncodeError, total + gpu);
    for (ByteBuffer* b : {&frame_, &strings_, &batches_, &gpu_strings_, &status_, &inline_strings_})
      b->clear_failure();
    return total + gpu;
  }
  if (write_failed_) {
    losses().add(LossReason::kWriteError, total + gpu);
    return total + gpu;
  }
  if (frame_.size() > kMaxFramePayload) {
    // The reader would take the length for garbage and lose the rest of the
    // file; this frame is counted lost instead.
    losses().add(LossReason::kEncodeError, total + gpu);
    return total + gpu;
  }
  write_frame(frame_);
  if (write_failed_) {
    losses().add(LossReason::kWriteError, total + gpu);
  } else {
    api_records_ += total - ranges;
    range_events_ += ranges;
    gpu_records_ += gpu;
  }
  return total + gpu;
}

void Writer::gpu(GpuRecord& record, const char* kernel_name) {
  if (kernel_name != nullptr) record.kernel = intern_gpu_name(kernel_name);
  gpu_.add(record);
}

void Writer::external_correlation(uint64_t correlation, uint64_t external_id) {
  external_.add(correlation, external_id);
}

uint32_t Writer::intern_gpu_name(const char* name) {
  const std::string_view key(name);
  if (auto it = gpu_names_.find(key); it != gpu_names_.end()) return it->second;
  try {
    const uint32_t id = next_gpu_name_++;
    gpu_names_.emplace(std::string(key), id);
    encode_string(gpu_strings_, id, StringKind::kKernel, key);
    return id;
  } catch (const std::bad_alloc&) {
    gpu_strings_.mark_failed();
    return 0;
  }
}

void Writer::write_footer() {
  LossCount counts[static_cast<int>(LossReason::kCount)];
  size_t n = 0;
  for (int i = 0; i < static_cast<int>(LossReason::kCount); ++i) {
    uint64_t c = losses().get(static_cast<LossReason>(i));
    if (c) counts[n++] = {kLossReasonNames[i], c};
  }
  FooterFields f;
  f.end_clock_ns = clock_ns();
  f.end_wall_ns =
      static_cast<uint64_t>(static_cast<int64_t>(f.end_clock_ns) + clock_offset_to_wall_ns());
  f.api_records = api_records_;
  f.gpu_records = gpu_records_;
  f.frames = frames_;
  f.losses = counts;
  f.loss_count = n;
  f.holds = holds().holds();
  f.held_ns = holds().held_ns();
  f.max_held_ns = holds().max_ns();
  f.peak_queue_bytes = chunks_.mapped_bytes();
  f.max_queue_bytes = chunks_.max_bytes();
  f.thread_mapped_bytes = holds().thread_maps() * ChunkPool::kChunksPerMapping * kChunkBytes;
  f.output_reopens = output_reopens_;
  f.timestamp_source = timestamp_source_name(ticks_.source());
  if (ticks_.source() == TimestampSource::kTsc) {  // clock_gettime needs no calibration
    f.ticks_per_second = ticks_.ticks_per_second();
    f.calibration_pairs = ticks_.pairs();
    f.max_uncertainty_ns = ticks_.max_uncertainty_ns();
    f.max_residual_ns = ticks_.max_residual_ns();
  }
  frame_.clear();
  encode_footer(frame_, f);
  write_frame(frame_);
  uint64_t lost = 0;
  for (int i = 0; i < static_cast<int>(LossReason::kCount); ++i)
    if (counts_lost_records(static_cast<LossReason>(i)))
      lost += losses().get(static_cast<LossReason>(i));
  if (lost)
    GPROF_WARN("%llu records were lost (see 'gpuprof info %s')",
               static_cast<unsigned long long>(lost), path_);
  if (f.holds)
    GPROF_WARN(
        "the program was held %llu times for %.1f ms in all (longest %.1f ms) while gprof's "
        "memory was at GPROF_MAX_MEMORY=%zuM (records queued or CUPTI buffers)",
        static_cast<unsigned long long>(f.holds), static_cast<double>(f.held_ns) / 1e6,
        static_cast<double>(f.max_held_ns) / 1e6, config_.max_memory >> 20);
}

void Writer::write_frame(const ByteBuffer& payload) {
  unsigned char header[8];
  encode_frame_header(payload, header);
  write_bytes(header, sizeof header);
  write_bytes(payload.data(), payload.size());
  if (!write_failed_) ++frames_;
}

// The devices, once CUDA runs: the header is written before CUDA is
// initialized, so they follow in a frame of their own (Frame.devices). Looked
// for on the first pass (the writer starts at the first record, usually after
// the first CUDA call), then every 100 ms until found, and before the footer,
// where the driver may have shut down already: then the devices it gave just
// before (collector/gpu/device_snapshot.h). Never in a fork child, whose CUDA
// is the parent's.
GpuSource* Writer::gpu_source() const {
  if (!gpu_calls_allowed_.load(std::memory_order_acquire)) return nullptr;
  return process_state().gpu_source.load(std::memory_order_acquire);
}

void Writer::poll_devices(uint64_t now_ns, bool final) {
  if (devices_written_ || !gpu_calls_allowed_.load(std::memory_order_acquire)) return;
  if (!final && last_device_poll_ns_ != 0 && now_ns - last_device_poll_ns_ < 100'000'000) return;
  last_device_poll_ns_ = now_ns;
  if (process_state().forked_child.load(std::memory_order_acquire)) return;
  // Driver calls: CUPTI may deliver records into them (GpuSource::call_into_cuda).
  struct Query {
    DeviceInfo found[64];
    size_t n = 0;
  };
  static Query query;  // writer thread only; too large for its stack's comfort
  query.n = 0;
  const auto ask = [](void* q) {
    auto* self = static_cast<Query*>(q);
    if (cuda_running())
      self->n = query_devices(self->found, sizeof self->found / sizeof self->found[0]);
  };
  GpuSource* source = process_state().gpu_source.load(std::memory_order_acquire);
  if (source) {
    // A thread waits: next pass, or (the last) what the driver said before exit.
    if (!source->call_into_cuda(*this, ask, &query) && !final) return;
  } else {
    ask(&query);
  }
  size_t n = query.n;
  const DeviceInfo* found = query.found;
  // Again here: the header may have been written before libcuda was loaded.
  int32_t driver = n != 0 ? driver_version() : 0;
  // The final pass may run after the driver shut down: what it said before.
  if (n == 0 && final) n = devices_before_cuda_exit(&found, &driver);
  if (n == 0) return;
  DeviceFields fields[64];
  for (size_t i = 0; i < n; ++i) {
    fields[i].ordinal = found[i].ordinal;
    fields[i].name = found[i].name;
    fields[i].compute_major = found[i].compute_major;
    fields[i].compute_minor = found[i].compute_minor;
    fields[i].sm_count = found[i].sm_count;
    fields[i].total_memory = found[i].total_memory;
    fields[i].pci_bus_id = found[i].pci_bus_id;
    fields[i].driver_version = driver;
  }
  frame_.clear();
  encode_devices(frame_, fields, n);
  devices_written_ = true;  // once, written or not
  if (frame_.failed()) {
    losses().add(LossReason::kEncodeError);
    return;
  }
  write_frame(frame_);
}

// The program may have closed our descriptor (a daemon closing every one from
// 3 up) or put another file at its number (dup2() of /dev/null): writing
// there would lose the records, or worse, write into the program's file.
bool Writer::descriptor_is_ours() const {
  FileIdentity now;
  return fd_ >= 0 && identify(fd_, now) && now.device == identity_.device &&
         now.inode == identity_.inode;
}

void Writer::close_output() {
  if (descriptor_is_ours()) close(fd_);
  fd_ = -1;
}

bool Writer::output_is_ours() {
  if (descriptor_is_ours()) return true;
  // Not ours any more: the number belongs to the program now, never close it,
  // unless the program dup2()ed /dev/null over it (over every descriptor,
  // say) and left none free to reopen with: that number was ours, and
  // /dev/null there serves nobody.
  int fd = reopen_output_file(reopen_path_, identity_);
  int error = errno;
  if (fd < 0 && (error == EMFILE || error == ENFILE) && is_dev_null(fd_)) {
    close(fd_);
    fd = reopen_output_file(reopen_path_, identity_);
    error = errno;
  }
  errno = error;
  if (fd < 0) {
    GPROF_WARN(
        "the program closed or replaced the descriptor of '%s', which cannot be reopened "
        "(%s); recording stopped, the program continues",
        path_, strerror(errno));
    fd_ = -1;
    return false;
  }
  fd_ = fd;
  if (output_reopens_++ == 0)
    GPROF_INFO("the program closed or replaced the descriptor of '%s'; reopened it", path_);
  return true;
}

void Writer::write_bytes(const void* data, size_t size) {
  if (write_failed_ || fd_ < 0) return;
  if (!output_is_ours()) {
    write_failed_ = true;
    stop_recording();
    return;
  }
  int error = write_all_at(fd_, data, size, offset_);
  if (error) {
    write_failed_ = true;
    GPROF_WARN("writing '%s' failed: %s; recording stopped, the program continues", path_,
               strerror(error));
    stop_recording();
    return;
  }
  offset_ += size;
}

}  // namespace gprof
