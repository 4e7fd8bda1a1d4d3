// CUDA initialized before the preload's constructor (docs/architecture.md §3.1): a library
// linked to the program ran its constructor first and called cuInit, so the
// driver read CUDA_INJECTION64_PATH before gprof set it and InitializeInjection
// never runs. The writer then finds CUDA running and attaches CUPTI itself, as
// kineto does when a profiler starts mid-run.
#pragma once

namespace gprof {

// inject/: how to attach (set up the CUPTI session with the hooks' callback
// handler). Registered only when the injection slot is gprof's (another
// tool's InitializeInjection would own CUPTI).
void set_late_attach(void (*attach)());

// InitializeInjection ran: the driver attached us, no late attach is needed.
void note_injection_called();

// The writer, every pass: when CUDA has been initialized for two polls in a
// row (100 ms apart, so that an InitializeInjection in progress on another
// thread is not raced) and InitializeInjection never ran, attach. Never in a
// fork child, never when libcuda is not loaded.
void poll_late_attach(unsigned long long now_ns);

}  // namespace gprof
