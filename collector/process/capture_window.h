// Capture windows (GPROF_CAPTURE, GPROF_DELAY/DURATION, GPROF_SKIP_STEPS/
// GPROF_STEPS): which stretch of the run is recorded. Outside the window the
// hooks see recording() == false and cost one relaxed load (docs/architecture.md §2.1).
#pragma once

#include <cstdint>

#include "collector/process/config.h"

namespace gprof {

// From initialize_process: reads the window settings, starts recording (or
// not, when the window opens later).
void configure_capture(const Config& config);

// Whether the window is open now (recording aside: it may have stopped for
// good). The CUPTI session collects GPU activity only while it is (changes
// reach it through GpuSource::window_changed).
bool capture_window_open();

// Writer thread: hands each window open/close logged since the `from`th to
// `seen` (time on the recording clock, open or not), in order; returns where
// to start next time. Past 514 transitions no more are logged.
uint32_t capture_transitions(uint32_t from, void (*seen)(void*, uint64_t, bool), void* context);

// Recording is possible at all (enabled, writer healthy); windows open and
// close only within it.
bool recording_enabled();
// Ends recording for good (exit, write error, fork child with GPROF_FORK=stop).
void stop_recording();

// The domain id GPROF_CAPTURE=nvtx:NAME@DOMAIN names, 0 for any domain.
uint32_t capture_domain();

// Whether the window opens or closes on NVTX names (GPROF_CAPTURE=nvtx:NAME, or
// steps counted by GPROF_SKIP_STEPS / GPROF_STEPS): otherwise a name's flags
// change nothing while recording.
bool capture_follows_names();

// Window events. `flags` are the StringTable flags of an NVTX range's name.
void capture_range_entered(uint8_t flags);
void capture_range_left(uint8_t flags);
void capture_profiler_start();
void capture_profiler_stop();
// The writer thread calls this every pass: time-based windows.
void capture_tick(uint64_t now_ns);
// GPROF_DELAY or GPROF_DURATION is set: the writer must run before the first
// record to open the window. Started at CUDA or NVTX initialization (threads
// are not allowed in the constructor, docs/architecture.md §2.6).
bool capture_needs_timer();

}  // namespace gprof
