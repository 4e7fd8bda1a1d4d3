// What the injection probe (injection_probe.cc, loaded through CUDA_INJECTION64_PATH) tells the
// checks: how often InitializeInjection ran, and the first call its CUPTI subscriber saw.
#pragma once

extern "C" {
int gprof_probe_injections(void);
const char* gprof_probe_first_call(void);
}
