// CUDA_INJECTION64_PATH, as the real driver honours it when it initializes: the library named
// there is loaded and its InitializeInjection() called, once per process, so that a tool (a
// profiler, a tracer) can subscribe to CUPTI before the application's first call is reported.
#pragma once

namespace gprof_fake {

// Runs the injection the first time it is called in a process; later calls return at once.
// Another thread calling meanwhile waits until InitializeInjection has returned, as callers of
// a real cuInit wait for it; calls that InitializeInjection itself makes go through. A failing
// dlopen or a library without InitializeInjection is ignored silently, as the driver does. The
// child of a fork never injects again: the parent's injection, if any, already ran.
void InjectOnce();

}  // namespace gprof_fake
