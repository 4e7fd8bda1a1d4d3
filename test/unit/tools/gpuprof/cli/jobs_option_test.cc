// trace's default --jobs (jobs_option.h): one per hardware thread up to the
// cap past which the trace's serial first thread is the limit, and at least
// one when the hardware threads are unknown (0).
#include "tools/gpuprof/cli/jobs_option.h"

#include <catch2/catch.hpp>

namespace gprof::cli {
namespace {

TEST_CASE("trace's default jobs follow the cores up to the cap") {
  CHECK(default_trace_jobs(0) == 1);
  CHECK(default_trace_jobs(1) == 1);
  CHECK(default_trace_jobs(2) == 2);
  CHECK(default_trace_jobs(4) == 4);
  CHECK(default_trace_jobs(16) == kTraceJobsCap);
  CHECK(kTraceJobsCap == 4);
}

}  // namespace
}  // namespace gprof::cli
