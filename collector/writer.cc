#include "collector/writer.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <new>

#include "collector/capture_window.h"
#include "collector/clock.h"
#include "collector/log.h"
#include "collector/loss_counters.h"
#include "collector/output_file.h"
#include "collector/output_path.h"
#include "collector/process_info.h"
#include "collector/process_state.h"
#include "collector/recorder.h"

namespace gprof {
namespace {

// Per ring per pass: keeps one frame well under kMaxFramePayload.
constexpr uint64_t kMaxRecordsPerRingPass = 16384;

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

Writer::Writer(const Config& config, RingPool& rings, KernelRegistry& kernels, StringTable& strings)
    : config_(config), rings_(rings), kernels_(kernels), strings_table_(strings) {
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
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void Writer::run() {
  if (open_file()) {
    write_header();
    while (!stop_requested_.load(std::memory_order_acquire)) {
      timespec deadline = deadline_after_ms(config_.flush_interval_ms);
      sem_clockwait(&wake_, CLOCK_MONOTONIC, &deadline);
      drain_once(kMaxRecordsPerRingPass);
    }
    // Bounded: other threads may keep pushing while the process exits.
    for (int pass = 0; pass < 64 && drain_once(kMaxRecordsPerRingPass) > 0; ++pass) {
    }
    write_footer();
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
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
  GPROF_INFO("recording to %s", path_);
  return true;
}

void Writer::write_header() {
  const ProcessInfo& info = info_;
  char ring_bytes[32], max_threads[16], file_mode[8], flush_timeout[16];
  snprintf(ring_bytes, sizeof ring_bytes, "%zu", config_.ring_bytes);
  snprintf(max_threads, sizeof max_threads, "%u", config_.max_threads);
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
      {"buffer_size", ring_bytes},
      {"max_threads", max_threads},
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
  h.start_clock_ns = clock_ns();
  h.clock_offset_to_wall_ns = clock_offset_to_wall_ns();
  h.start_wall_ns =
      static_cast<uint64_t>(static_cast<int64_t>(h.start_clock_ns) + h.clock_offset_to_wall_ns);
  h.clock_name = kClockName;
  h.cuda_runtime_version = info.cuda_runtime_version;
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

uint64_t Writer::drain_once(uint64_t max_per_ring) {
  batches_.clear();
  uint64_t total = 0;
  uint64_t ranges = 0;
  rings_.for_each_in_use([&](Ring& ring) {
    const uint32_t tid = ring.tid.load(std::memory_order_relaxed);
    calls_.begin(tid);
    ranges_.begin(tid);
    uint64_t n = ring.drain(max_per_ring, [&](const ApiRecord& r) {
      if (r.kind == RecordKind::kRange) {
        RangeEvent e;
        std::memcpy(&e, &r, sizeof e);
        ranges_.add(e);
      } else {
        calls_.add(r);
      }
    });
    ranges += ranges_.count();
    if (calls_.count() > 0) calls_.finish(batches_);
    if (ranges_.count() > 0) ranges_.finish(batches_);
    total += n;
  });
  ProcessState& p = process_state();
  capture_tick(clock_ns());
  gpu_strings_.clear();
  uint64_t gpu = 0;
  if (GpuSource* source = p.gpu_source.load(std::memory_order_acquire)) {
    source->poll(clock_ns());
    gpu = source->drain(*this);
  }
  if (gpu_.count() > 0) gpu_.finish(batches_);
  if (external_.count() > 0) external_.finish(batches_);
  status_.clear();
  p.cupti.encode_if_changed(status_, cupti_status_seen_);
  // Names are read after the records: a record is pushed only after its
  // kernel's name was published, so every id drained so far is covered.
  strings_.clear();
  uint32_t published = kernels_.published();
  for (; names_emitted_ < published; ++names_emitted_) {
    if (const char* name = kernels_.name(names_emitted_))
      encode_string(strings_, names_emitted_, StringKind::kKernel, name);
  }
  // NVTX strings, published before any event that carries their id.
  for (const uint32_t end = strings_table_.end(); strings_emitted_ < end; ++strings_emitted_) {
    if (const char* text = strings_table_.text(strings_emitted_)) {
      const auto kind = static_cast<StringKind>(strings_table_.string_class(strings_emitted_));
      encode_string(strings_, strings_emitted_, kind, text);
    }
  }
  if (total == 0 && gpu == 0 && strings_.empty() && status_.empty()) return 0;
  frame_.clear();
  frame_.append(status_.data(), status_.size());
  frame_.append(strings_.data(), strings_.size());
  frame_.append(gpu_strings_.data(), gpu_strings_.size());
  frame_.append(batches_.data(), batches_.size());
  if (frame_.failed() || strings_.failed() || batches_.failed() || gpu_strings_.failed() ||
      status_.failed()) {
    losses().add(LossReason::kEncodeError, total + gpu);
    for (ByteBuffer* b : {&frame_, &strings_, &batches_, &gpu_strings_, &status_})
      b->clear_failure();
    return total + gpu;
  }
  if (write_failed_) {
    losses().add(LossReason::kWriteError, total + gpu);
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
}

void Writer::write_frame(const ByteBuffer& payload) {
  unsigned char header[8];
  encode_frame_header(payload, header);
  write_bytes(header, sizeof header);
  write_bytes(payload.data(), payload.size());
  if (!write_failed_) ++frames_;
}

void Writer::write_bytes(const void* data, size_t size) {
  if (write_failed_ || fd_ < 0) return;
  int error = write_all(fd_, data, size);
  if (error) {
    write_failed_ = true;
    GPROF_WARN("writing '%s' failed: %s; recording stopped, the program continues", path_,
               strerror(error));
    stop_recording();
  }
}

}  // namespace gprof
