#include "tools/gen/generator.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace gprof::gen {

void Generator::write_frame(const ByteBuffer& payload) {
  unsigned char header[8];
  encode_frame_header(payload, header);
  if (std::fwrite(header, 1, sizeof header, out_) != sizeof header ||
      std::fwrite(payload.data(), 1, payload.size(), out_) != payload.size())
    write_failed_ = true;
  ++counts_.frames;
  counts_.bytes += sizeof header + payload.size();
}

// Whether CUPTI reports a GPU record while no window may be open: its call
// was recorded, or its work starts before the kinds go off after a close
// (outside the window: the readers leave it out). Else it is kept aside in
// case a window opens before its work starts (then it comes without its call).
bool Generator::record_gpu(Thread& t, const GpuRecord& r) {
  if (kinds_on(r.start_ns)) return true;
  ++skipped_.gpu;
  uint64_t now = UINT64_MAX;  // no window opens before every thread's clock
  for (auto& other : threads_) now = std::min(now, other->now);
  while (!t.unrecorded.empty() &&
         (t.unrecorded.front().start_ns < now || t.unrecorded.size() > 4096))
    t.unrecorded.pop_front();
  t.unrecorded.push_back(r);
  return false;
}

// The main thread's step `step_` begins (`begins`) or step `step_ - 1` has ended, at `now`.
void Generator::step_window(uint64_t now, bool begins) {
  for (const auto& [start, stop] : s_.capture_steps) {
    if (begins && !capturing_ && step_ == start) {
      capturing_ = true;
      windows_.push_back(now);
      windows_.push_back(0);  // open
      windows_changed_ = true;
      // Work queued before the window that starts in it: reported, without its call.
      for (auto& other : threads_) {
        for (const GpuRecord& r : other->unrecorded) {
          if (r.start_ns < now) continue;
          other->buffer->add(r);
          --skipped_.gpu;
        }
        other->unrecorded.clear();
      }
    } else if (!begins && capturing_ && step_ == stop) {
      capturing_ = false;
      windows_.back() = now;
      closed_at_ = now;
      windows_changed_ = true;
    }
  }
}

// The main thread's step `step_` begins (`begins`) or step `step_ - 1` has
// ended: another tool takes CUPTI, or gives it back (as collector/gpu/
// session/takeover.cc records it), after every call made so far began (the
// main thread's clock is the earliest, but the others made calls up to
// theirs), so that whether a call is in a gap follows its start alone.
void Generator::step_takeover(bool begins) {
  const uint64_t now = std::max(threads_.front()->now, latest_call_ + 1);
  for (const auto& [start, stop] : s_.takeover_steps) {
    if (begins && !taken_ && step_ == start) {
      taken_ = true;
      CuptiGapFields gap;
      gap.start_ns = now;
      gap.reason = "cuptiActivityRegisterCallbacks by another tool (gpuprof-gen --takeover)";
      gap.gpu_records_before = gpu_written_;
      gaps_.push_back(gap);
      status_.state = CuptiState::kExternalCorrelation;
      status_.reason = "CUPTI's subscriber given up to another tool";
      status_changed_ = true;
    } else if (!begins && taken_ && step_ == stop) {
      taken_ = false;
      gaps_.back().end_ns = now;
      gaps_.back().gpu_records_at_end = gpu_written_;
      status_changed_ = true;
    }
  }
}

void Generator::flush(bool last) {
  frame_.clear();
  if (status_changed_) {
    status_.gaps = gaps_.data();
    status_.gap_count = std::min<size_t>(gaps_.size(), 16);
    status_.gaps_not_kept = static_cast<uint32_t>(gaps_.size() - status_.gap_count);
    if (!windows_changed_) encode_cupti_status(frame_, status_);
    status_changed_ = false;
  }
  if (windows_changed_ && windows_.size() / 2 <= 256) {
    // As the shim's writer: the status again, first in the frame, when the windows change.
    status_.windows = windows_.data();
    status_.window_count = windows_.size() / 2;
    encode_cupti_status(frame_, status_);
    windows_changed_ = false;
  }
  frame_.append(strings_.data(), strings_.size());
  strings_.clear();
  for (auto& t : threads_) {
    if (t->calls.count() > 0) t->calls.finish(frame_);
    if (t->ranges.count() > 0) t->ranges.finish(frame_);
  }
  // The lagging buffers whose time has come: the slowest thread's clock is
  // the process's.
  uint64_t now = UINT64_MAX;
  for (auto& t : threads_) now = std::min(now, t->now);
  while (!lagging_.empty() && (last || lagging_.front().first <= now)) {
    completed_.push_back(std::move(lagging_.front().second));
    lagging_.pop_front();
  }
  if (last) {
    for (auto& t : threads_) {
      if (t->buffer->count() == 0) continue;
      completed_.push_back(std::move(t->buffer));
      t->buffer = std::make_unique<ActivityBuffer>();
    }
  }
  // CUPTI hands buffers back as they complete, not in the order of their
  // records: shuffled, and some held back a frame or more.
  for (size_t i = completed_.size(); i > 1; --i)
    std::swap(completed_[i - 1], completed_[rng_.below(i)]);
  std::vector<std::unique_ptr<ActivityBuffer>> later;
  uint64_t in_frame = 0;
  for (auto& buffer : completed_) {
    if (!last && rng_.one_in(3)) {
      later.push_back(std::move(buffer));
      continue;
    }
    // Many lagging buffers come due at once at the end: frames of the
    // shim's size (its writer never makes one of them all), not one frame.
    if (s_.gpu_lag_ns != 0 && in_frame >= kFrameRecords) {
      write_frame(frame_);
      frame_.clear();
      in_frame = 0;
    }
    in_frame += buffer->count();
    buffer->finish(frame_);
    if (buffer->externals.count() > 0) buffer->externals.finish(frame_);
  }
  completed_ = std::move(later);
  if (!frame_.empty()) write_frame(frame_);
  pending_ = 0;
}

void Generator::write_header() {
  ByteBuffer preamble;
  encode_preamble(preamble);
  if (std::fwrite(preamble.data(), 1, preamble.size(), out_) != preamble.size())
    write_failed_ = true;
  counts_.bytes += preamble.size();

  const std::string seed = std::to_string(s_.seed), rank = std::to_string(s_.rank);
  const char* argv[] = {"gpuprof-gen", "--seed", seed.c_str(), "--rank", rank.c_str()};
  const KeyValue config[] = {
      {"output", "gprof-%r.gprof"}, {"max_memory", "268435456"},     {"on_full", "wait"},
      {"max_wait_ms", "10000"},     {"timestamps", "clock_gettime"}, {"file_mode", "0600"},
      {"fork", "follow"},           {"flush_timeout_ms", "2000"},    {"capture", "all"}};
  const std::string host = "gen-node" + std::to_string(s_.rank / 8);
  HeaderFields h;
  h.pid = threads_.front()->tid;
  h.ppid = 4000 + s_.rank / 8;
  h.host = host;
  h.argv = argv;
  h.argc = sizeof argv / sizeof argv[0];
  h.exe = "gpuprof-gen";
  h.start_clock_ns = threads_.front()->now - 1'000'000;
  h.clock_offset_to_wall_ns = kWallOffsetNs;
  h.start_wall_ns = h.start_clock_ns + static_cast<uint64_t>(kWallOffsetNs);
  h.clock_name = "CLOCK_MONOTONIC";
  h.cuda_runtime_version = 13000;
  h.cuda_driver_version = 13000;
  h.rank = rank;
  h.gprof_version = GPROF_VERSION;
  h.config = config;
  h.config_count = sizeof config / sizeof config[0];
  std::vector<KeyValue> windowed_config(std::begin(config), std::end(config));
  if (windowed()) {
    windowed_config.back().value = "cudaProfilerApi";  // capture
    h.config = windowed_config.data();
  }
  frame_.clear();
  encode_header(frame_, h);
  write_frame(frame_);

  // The devices as the driver lists them once CUDA runs (a frame of their
  // own), and how CUPTI was set up.
  const uint32_t devices = std::min<uint32_t>(s_.ranks, 8);
  std::vector<std::string> pci(devices);
  std::vector<DeviceFields> fields(devices);
  for (uint32_t d = 0; d < devices; ++d) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02X:00.0", 0x18 + 0x10 * d);
    pci[d] = bus;
    fields[d].ordinal = d;
    fields[d].name = "NVIDIA H100 80GB HBM3";
    fields[d].compute_major = 9;
    fields[d].compute_minor = 0;
    fields[d].sm_count = 132;
    fields[d].total_memory = 85'045'149'696ull;
    fields[d].pci_bus_id = pci[d];
  }
  frame_.clear();
  encode_devices(frame_, fields.data(), fields.size());
  static const char* kinds[] = {"CONCURRENT_KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION"};
  CuptiStatusFields& status = status_;
  status.state = CuptiState::kSubscribed;
  status.version = 130001;
  status.library = "/usr/local/cuda/lib64/libcupti.so.13";
  status.timestamps_aligned = true;
  status.activity_kinds = kinds;
  status.activity_kind_count = sizeof kinds / sizeof kinds[0];
  status.attach = "injection";
  status.buffer_bytes = 1 << 20;
  status.buffer_count = 16;
  status.windows_recorded = windowed();
  encode_cupti_status(frame_, status);
  write_frame(frame_);
}

bool Generator::run(std::string& error) {
  // Thread 0 trains (forward ops, steps); then the autograd thread, more
  // forward and backward threads, and a pin-memory thread that copies.
  const uint32_t pid = 20000 + 1000 * s_.rank + static_cast<uint32_t>(rng_.below(500));
  const uint64_t origin = 5'000'000'000'000ull + s_.rank * 1'234'567ull;
  for (uint32_t i = 0; i < s_.threads; ++i) {
    auto t = std::make_unique<Thread>();
    t->tid = i == 0 ? pid : pid + 7 + 3 * i;
    t->role = i == 0                                  ? Role::kMain
              : i == 1                                ? Role::kBackward
              : i + 1 == s_.threads && s_.threads > 3 ? Role::kCopy
              : i % 2 == 0                            ? Role::kForward
                                                      : Role::kBackward;
    t->now = origin + (i == 0 ? 0 : 2'000'000 + rng_.below(1'000'000));
    t->stream = 0x55d0a0000000ull + 0x1000 * i;
    t->cupti_stream = 7 + 6 * i;
    t->buffer_capacity = rng_.between(2000, 6000);
    t->calls.begin(t->tid);
    t->ranges.begin(t->tid);
    if (windowed()) {
      t->calls.open = t->ranges.open = &capturing_;
      t->calls.skipped = &skipped_.api;
      t->ranges.skipped = &skipped_.ranges;
    }
    threads_.push_back(std::move(t));
  }
  write_header();

  for (auto& t : threads_) {
    const char* name = t->role == Role::kMain       ? "pt_main_thread"
                       : t->role == Role::kCopy     ? "pin_memory"
                       : t->role == Role::kBackward ? "pt_autograd_0"
                                                    : "pt_worker";
    RangeEvent e{};
    e.kind = RecordKind::kRange;
    e.op = RangeOp::kNameThread;
    e.time_ns = t->now;
    e.range_id = t->tid;
    e.name = nvtx(name);
    t->ranges.add(e);
    t->now += 1000;
    ++counts_.ranges;
  }
  Thread& main = *threads_.front();
  uint64_t addresses[kAllocations];
  for (uint32_t i = 0; i < kAllocations; ++i) {
    ApiRecord a = call(main, ApiId::cudaMalloc, rng_.around(120000));
    a.bytes = (64ull << 20) << i;
    a.address = addresses[i] = 0x7f3a00000000ull + (static_cast<uint64_t>(i) << 34);
    main.calls.add(a);
  }
  ApiRecord pinned = call(main, ApiId::cudaMallocHost, rng_.around(900000));
  pinned.bytes = 64ull << 20;
  pinned.address = 0x7f1200000000ull;
  main.calls.add(pinned);

  // What the end takes: the frees and the close of an open step.
  const uint64_t reserve = kAllocations + 2;
  for (;;) {
    Thread* t = threads_.front().get();
    for (auto& other : threads_)
      if (other->now < t->now) t = other.get();
    const Unit u = next_unit(*t);
    if (counts_.records() + records_of(u) + reserve > s_.records) break;
    work(*t, u);
    ++t->units;
    if (pending_ >= kFrameRecords) flush(false);
  }
  for (auto& t : threads_) main.now = std::max(main.now, t->now);
  if (in_step_)
    pop(main);
  else
    mark(main, nvtx("gpuprof-gen: end"));
  for (uint32_t i = 0; i < kAllocations; ++i) {
    ApiRecord a = call(main, ApiId::cudaFree, rng_.around(40000));
    a.address = addresses[i];
    main.calls.add(a);
  }
  ApiRecord free_host = call(main, ApiId::cudaFreeHost, rng_.around(200000));
  free_host.address = pinned.address;
  main.calls.add(free_host);
  // Exactly the records asked for: the rest are marks.
  while (counts_.records() < s_.records) mark(main, nvtx("gpuprof-gen: pad"));
  flush(true);
  // What the file holds: the records made while a window was open.
  counts_.api -= skipped_.api;
  counts_.gpu -= skipped_.gpu;
  counts_.ranges -= skipped_.ranges;

  FooterFields f;
  f.end_clock_ns = main.now + 1'000'000;
  f.end_wall_ns = f.end_clock_ns + static_cast<uint64_t>(kWallOffsetNs);
  f.api_records = counts_.api;
  f.gpu_records = counts_.gpu;
  f.frames = counts_.frames;
  f.peak_queue_bytes = 4ull << 20;
  f.max_queue_bytes = 256ull << 20;
  f.timestamp_source = "clock_gettime";
  frame_.clear();
  encode_footer(frame_, f);
  write_frame(frame_);
  if (std::fflush(out_) != 0) write_failed_ = true;
  if (write_failed_ || strings_.failed() || frame_.failed()) {
    error = write_failed_ ? "write failed" : "out of memory";
    return false;
  }
  return true;
}

}  // namespace gprof::gen
