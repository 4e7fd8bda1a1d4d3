// gpu-idle's start-up and warm-up (gpu_gaps.h StartupFinder and FirstRuns,
// rule_tallies.h has_startup, device_windows, setup_window) on hand-made
// intervals and timelines.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "tools/findings/rules/gpu_gaps.h"
#include "tools/findings/rules/rule_tallies.h"

namespace gprof::findings {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST_CASE("StartupFinder: start-up ends after the last gap before 1% of the kernels", "[analyze]") {
  // The torch run's shape (../shared/real-gpu torch-681): uploads, a long wait, a few
  // initialization kernels and a shorter wait, then the loop's 100 kernels of 1 ms with
  // 2 ms stalls between them.
  struct Interval {
    uint64_t start, end;
    bool kernel;
  };
  std::vector<Interval> work = {{0, 3 * kMs, false},                      // a 3 ms upload
                                {3 * kMs, 5 * kMs, false},                // another, right after
                                {5000 * kMs, 5000 * kMs + 10'000, true},  // 10 us init
                                {5100 * kMs, 5101 * kMs, true}};
  for (uint64_t i = 1; i < 100; ++i)
    work.push_back({5101 * kMs + i * 3 * kMs, 5102 * kMs + i * 3 * kMs, true});
  const uint64_t kernels = 101;
  StartupFinder startup(kernels, 0.01, kMs);
  for (const Interval& w : work) startup.add(w.start, w.end, w.kernel);
  // One kernel before the 100 ms gap: under 1% of 101; two before the loop's first stall.
  CHECK(startup.end_ns() == 5100 * kMs);

  SECTION("a share of 0 finds none") {
    StartupFinder none(kernels, 0.0, kMs);
    for (const Interval& w : work) none.add(w.start, w.end, w.kernel);
    CHECK(none.end_ns() == 0);
  }
  SECTION("gaps under min_gap are no start-up") {
    StartupFinder coarse(kernels, 0.01, 200 * kMs);
    for (const Interval& w : work) coarse.add(w.start, w.end, w.kernel);
    CHECK(coarse.end_ns() == 5000 * kMs);  // the 100 ms gap is under 200 ms
  }
  SECTION("short kernels before a long one are the run's, not its start-up") {
    // 100 kernels of 10 us 10 ms apart, then one of 10 s: nearly all of the kernel time
    // comes last, but by number the first stall alone is before 1% of them.
    StartupFinder phases(101, 0.01, kMs);
    for (uint64_t i = 0; i < 100; ++i) phases.add(i * 10 * kMs, i * 10 * kMs + 10'000, true);
    phases.add(1000 * kMs, 11000 * kMs, true);
    CHECK(phases.end_ns() == 10 * kMs);
  }
  SECTION("a loop whose first stall comes after its first kernels keeps it") {
    StartupFinder loop(10, 0.01, kMs);  // ten kernels in all
    loop.add(0, kMs, true);             // 10% already
    loop.add(3 * kMs, 4 * kMs, true);   // after a 2 ms stall: the loop's
    CHECK(loop.end_ns() == 0);
  }
}

TEST_CASE("gpu-idle's windows: steps, start-up, --range", "[analyze]") {
  Timeline t;
  t.windows = {{0, 1000 * kMs}};
  CHECK(has_startup(t));
  CHECK(device_windows(t, 10 * kMs, 900 * kMs, 300 * kMs) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{300 * kMs, 900 * kMs}});
  CHECK(setup_window(t, 10 * kMs, 900 * kMs, 300 * kMs) == std::pair{10 * kMs, 300 * kMs});
  CHECK_FALSE(setup_window(t, 10 * kMs, 900 * kMs, 0).has_value());

  SECTION("steps say where the run begins") {
    t.steps.push_back(Step{200 * kMs, 400 * kMs, kNone});
    CHECK_FALSE(has_startup(t));
    CHECK(device_windows(t, 10 * kMs, 900 * kMs, 0) ==
          std::vector<std::pair<uint64_t, uint64_t>>{{200 * kMs, 900 * kMs}});
    CHECK(setup_window(t, 10 * kMs, 900 * kMs, 0) == std::pair{10 * kMs, 200 * kMs});
  }
  SECTION("a --range window is the user's: no step nor start-up is left out of it") {
    t.ranged = true;
    t.steps.push_back(Step{200 * kMs, 400 * kMs, kNone});
    CHECK_FALSE(has_startup(t));
    // Cut to the device's work only, as every window is.
    CHECK(device_windows(t, 10 * kMs, 900 * kMs, 300 * kMs) ==
          std::vector<std::pair<uint64_t, uint64_t>>{{10 * kMs, 900 * kMs}});
    CHECK_FALSE(setup_window(t, 10 * kMs, 900 * kMs, 300 * kMs).has_value());
  }
}

TEST_CASE("FirstRuns: a gap ends in warm-up where a kernel first ran", "[analyze]") {
  // torch-681's loop (../shared/real-gpu): each long gap of its first iteration ended with a
  // new kernel; later runs of those kernels, copies and ties at one start are no first runs.
  FirstRuns runs;
  runs.add(0, "Memcpy HtoD", false);    // a copy: never a first run
  runs.add(10 * kMs, "gemm", true);     // gemm's first run
  runs.add(10 * kMs, "relu", true);     // relu starts with it
  runs.add(40 * kMs, "gemm", true);     // gemm again
  runs.add(60 * kMs, "softmax", true);  // softmax's first run
  runs.add(90 * kMs, "softmax", true);
  CHECK_FALSE(runs.at(0));
  CHECK(runs.at(10 * kMs));
  CHECK_FALSE(runs.at(40 * kMs));
  CHECK(runs.at(60 * kMs));
  CHECK_FALSE(runs.at(90 * kMs));
  CHECK_FALSE(runs.at(61 * kMs));
}

}  // namespace
}  // namespace gprof::findings
