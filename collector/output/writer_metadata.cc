// What the file says besides the records: the header, the devices once CUDA
// runs, and the footer with the run's counts and losses.
#include "collector/output/writer.h"

#include <cstdio>
#include <ctime>

#include "collector/gpu/device_snapshot.h"
#include "collector/output/output_path.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"

namespace gprof {

namespace {

const char* fork_policy_name(ForkPolicy policy) {
  return policy == ForkPolicy::kStop ? "stop" : "follow";
}

}  // namespace

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

}  // namespace gprof
