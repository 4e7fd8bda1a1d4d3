#include "collector/process/capture_window.h"

#include <atomic>
#include <cstring>
#include <string_view>

#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/static_tls.h"

namespace gprof {
namespace {

struct Window {
  std::atomic<bool> enabled{false};
  CaptureMode mode = CaptureMode::kAll;
  std::atomic<int> profiler_on{0};    // cudaProfilerStart/Stop: 1 between them
  std::atomic<int> capture_depth{0};  // open GPROF_CAPTURE=nvtx:NAME ranges
  std::atomic<uint32_t> steps_started{0};
  std::atomic<int> step_open{0};  // 1 while inside a step the window takes
  std::atomic<bool> steps_done{false};
  std::atomic<bool> time_open{true};
  uint64_t start_ns = 0;
  uint64_t open_at_ns = 0;   // GPROF_DELAY
  uint64_t close_at_ns = 0;  // GPROF_DURATION (0: never)
  uint32_t skip_steps = 0;
  uint32_t steps = 0;  // 0: every step after the skipped ones
  bool step_gated = false;
  char capture_name[Config::kMaxName] = {};
  char step_name[Config::kMaxName] = {};
  uint32_t capture_domain = 0;  // interned domain of nvtx:NAME@DOMAIN, 0: any
};

constinit Window g_window;

bool prefix_glob(std::string_view pattern, std::string_view text) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return text.substr(0, pattern.size()) == pattern;
  }
  return pattern == text;
}

uint8_t classify(const char* text, size_t size, StringClass cls) {
  if (cls != StringClass::kNvtx) return 0;
  const std::string_view name(text, size);
  uint8_t flags = 0;
  const Window& w = g_window;
  if (w.step_name[0] ? prefix_glob(w.step_name, name)
                     : (name.substr(0, 12) == "ProfilerStep" || name.substr(0, 4) == "step"))
    flags |= kStringStep;
  if (w.mode == CaptureMode::kNvtx && prefix_glob(w.capture_name, name)) flags |= kStringCapture;
  return flags;
}

void set_recording(bool on) {
  g_recording.store(on, std::memory_order_release);
  g_fast_record.store(on && g_timestamp_source == TimestampSource::kTsc && static_tls_found(),
                      std::memory_order_release);
  refresh_fast_launch();
}

bool window_open() {
  const Window& w = g_window;
  bool on = w.time_open.load();
  if (on && w.mode == CaptureMode::kProfilerApi) on = w.profiler_on.load() > 0;
  if (on && w.mode == CaptureMode::kNvtx) on = w.capture_depth.load() > 0;
  if (on && w.step_gated) on = w.step_open.load() > 0 && !w.steps_done.load();
  return on;
}

// What the GPU side was last told (collector/gpu/gpu_source.h, window_changed).
constinit std::atomic<bool> g_told_open{true};

// Opens and closes, for the file (CuptiStatus.capture_windows): claimed by
// any thread with one fetch_add, read in order by the writer. An entry is
// its time << 1 | open, 0 until written.
constexpr uint32_t kMaxTransitions = 2 * CuptiStatus::kMaxWindows + 2;
constinit std::atomic<uint64_t> g_transitions[kMaxTransitions] = {};
constinit std::atomic<uint32_t> g_transition_count{0};

void log_transition(bool open) {
  const uint32_t i = g_transition_count.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxTransitions)
    g_transitions[i].store(clock_ns() << 1 | (open ? 1 : 0), std::memory_order_release);
}

void tell_gpu(bool open) {
  if (GpuSource* gpu = process_state().gpu_source.load(std::memory_order_acquire))
    gpu->window_changed(open);
}

// An open turns the GPU kinds on before the calls are recorded, a close
// stops recording before it turns them off: a call at the edge on another
// thread is then at worst GPU work without its call (counted as outside the
// window), never a recorded call whose GPU work was not collected.
void update() {
  const bool open = window_open();
  const bool changed = g_told_open.exchange(open, std::memory_order_acq_rel) != open;
  if (changed) log_transition(open);
  if (changed && open) tell_gpu(true);
  set_recording(g_window.enabled.load(std::memory_order_acquire) && open);
  if (changed && !open) tell_gpu(false);
}

}  // namespace

void configure_capture(const Config& c) {
  Window& w = g_window;
  w.mode = c.capture_mode;
  std::memcpy(w.capture_name, c.capture_name, sizeof w.capture_name);
  std::memcpy(w.step_name, c.step_name, sizeof w.step_name);
  w.skip_steps = c.skip_steps;
  w.steps = c.steps;
  w.step_gated = c.skip_steps > 0 || c.steps > 0;
  w.start_ns = clock_ns();
  w.open_at_ns = w.start_ns + c.delay_ms * 1000000ull;
  w.close_at_ns = c.duration_ms ? w.open_at_ns + c.duration_ms * 1000000ull : 0;
  w.time_open.store(c.delay_ms == 0);
  process_state().strings.set_classifier(classify);
  if (c.capture_domain[0])
    w.capture_domain = process_state().strings.intern(
        c.capture_domain, std::strlen(c.capture_domain), StringClass::kDomain);
  w.enabled.store(true, std::memory_order_release);
  // Where the file's intervals begin: open from the start, or not.
  const bool open = window_open();
  g_told_open.store(open, std::memory_order_release);
  if (c.capture_mode != CaptureMode::kAll || capture_needs_timer() || w.step_gated)
    log_transition(open);
  update();
}

bool capture_window_open() {
  return window_open();
}

uint32_t capture_transitions(uint32_t from, void (*seen)(void*, uint64_t, bool), void* context) {
  const uint32_t count = g_transition_count.load(std::memory_order_acquire);
  uint32_t i = from;
  for (; i < count && i < kMaxTransitions; ++i) {
    const uint64_t entry = g_transitions[i].load(std::memory_order_acquire);
    if (entry == 0) break;  // claimed, not written yet: next pass
    seen(context, entry >> 1, (entry & 1) != 0);
  }
  return i;
}

uint32_t capture_domain() {
  return g_window.capture_domain;
}

bool recording_enabled() {
  return g_window.enabled.load(std::memory_order_acquire);
}

void stop_recording() {
  g_window.enabled.store(false, std::memory_order_release);
  set_recording(false);
}

bool capture_follows_names() {
  return g_window.mode == CaptureMode::kNvtx || g_window.step_gated;
}

void capture_range_entered(uint8_t flags) {
  Window& w = g_window;
  if (flags & kStringCapture) w.capture_depth.fetch_add(1);
  if ((flags & kStringStep) && w.step_gated) {
    const uint32_t index = w.steps_started.fetch_add(1);
    const bool taken = index >= w.skip_steps && (w.steps == 0 || index < w.skip_steps + w.steps);
    w.step_open.store(taken ? 1 : 0);
    if (w.steps != 0 && index >= w.skip_steps + w.steps) w.steps_done.store(true);
  }
  if (flags) update();
}

void capture_range_left(uint8_t flags) {
  Window& w = g_window;
  if ((flags & kStringCapture) && w.capture_depth.load() > 0) w.capture_depth.fetch_sub(1);
  if ((flags & kStringStep) && w.step_gated) {
    w.step_open.store(0);
    if (w.steps != 0 && w.steps_started.load() >= w.skip_steps + w.steps) w.steps_done.store(true);
  }
  if (flags) update();
}

void capture_profiler_start() {
  g_window.profiler_on.store(1);
  update();
}

void capture_profiler_stop() {
  g_window.profiler_on.store(0);
  update();
}

bool capture_needs_timer() {
  const Window& w = g_window;
  return w.enabled.load() && (w.open_at_ns != w.start_ns || w.close_at_ns != 0);
}

void capture_tick(uint64_t now_ns) {
  Window& w = g_window;
  const bool open = now_ns >= w.open_at_ns && (w.close_at_ns == 0 || now_ns < w.close_at_ns);
  if (open != w.time_open.load()) {
    w.time_open.store(open);
    update();
  }
}

}  // namespace gprof
