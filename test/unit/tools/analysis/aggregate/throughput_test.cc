// Steps, GPU busy time and synchronize time (steps.h, gpu_busy.h,
// throughput.h, throughput_text.h).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/model/steps.h"
#include "tools/analysis/render/throughput_text.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

TEST_CASE("quantile: linear between the closest ranks", "[throughput]") {
  const std::vector<uint64_t> sorted = {100, 200, 300, 400, 1000};
  CHECK(quantile(sorted, 0) == 100);
  CHECK(quantile(sorted, 0.5) == 300);
  CHECK(quantile(sorted, 1) == 1000);
  CHECK(quantile(sorted, 0.95) == Approx(400 + 0.8 * 600));  // position 3.8
  CHECK(quantile({10, 20}, 0.5) == 15);
  CHECK(quantile({7}, 0.95) == 7);
  CHECK(quantile({}, 0.5) == 0);
}

TEST_CASE("steps: the first pattern that matches wins; nested steps are part of theirs",
          "[throughput]") {
  StepFinder finder(default_step_patterns());
  finder.add("ProfilerStep#1", 1000, 2000);
  finder.add("step_optimizer", 1500, 1600);  // matches step*, but ProfilerStep* matched too
  finder.add("ProfilerStep#2", 2000, 3500);
  finder.add("ProfilerStep#2", 2100, 2200);  // nested in the previous one
  finder.add("forward", 1100, 1200);
  finder.add("ProfilerStep#3", 4000, 4900);
  const auto stats = finder.finish();
  REQUIRE(stats);
  CHECK(stats->pattern == "ProfilerStep*");
  CHECK(stats->count == 3);
  CHECK(stats->first_start_ns == 1000);
  CHECK(stats->last_end_ns == 4900);
  CHECK(stats->window_ns() == 3900);
  CHECK(stats->min_ns == 900);
  CHECK(stats->max_ns == 1500);
  CHECK(stats->median_ns == 1000);
  CHECK(stats->p95_ns == Approx(1000 + 0.9 * 500));  // position 1.9 of {900, 1000, 1500}

  StepFinder fallback(default_step_patterns());
  fallback.add("step 1", 0, 10);
  fallback.add("step 2", 10, 30);
  const auto second = fallback.finish();
  REQUIRE(second);
  CHECK(second->pattern == "step*");
  CHECK(second->count == 2);

  StepFinder none({"iteration"});
  none.add("step 1", 0, 10);
  CHECK_FALSE(none.finish());
}

TEST_CASE("gpu busy: union of intervals, clipped", "[throughput]") {
  std::vector<Interval> work = {{50, 150}, {0, 100}, {200, 300}, {250, 260}, {400, 500}};
  CHECK(covered_length(work, 0, 1000) == 150 + 100 + 100);
  CHECK(covered_length(work, 120, 450) == 30 + 100 + 50);
  CHECK(covered_length(work, 600, 700) == 0);
  const std::vector<Interval> waits = {{0, 100}, {50, 150}, {900, 1100}};
  CHECK(clipped_sum(waits, 0, 1000) == 100 + 100 + 100);
}

// Two steps on thread 1 ([1000, 5000) and [5000, 9000)), a sync inside each,
// kernels on devices 0 and 1, and work before the first step (outside the
// window).
std::string write_steps_file() {
  std::vector<RangeEvent> events = {
      make_range_event(RangeOp::kPush, 1000, 1), make_range_event(RangeOp::kPop, 5000),
      make_range_event(RangeOp::kPush, 5000, 2), make_range_event(RangeOp::kPop, 9000)};
  GpuRecord on_one = make_kernel(10, 6000, 1000, 4);
  on_one.device = 1;
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .named(pb::StringEntry::NVTX, {{1, "ProfilerStep#0"}, {2, "ProfilerStep#1"}})
      .strings({{10, "_Z6squarePfi"}})
      .calls(1, {make_launch(ApiId::cudaLaunchKernel, 500, 10, 10, 1),
                 make_launch(ApiId::cudaLaunchKernel, 1100, 10, 10, 2),
                 make_correlated(ApiId::cudaDeviceSynchronize, 1200, 2000, 0),
                 make_launch(ApiId::cudaLaunchKernel, 5100, 10, 10, 3),
                 make_launch(ApiId::cudaLaunchKernel, 5200, 10, 10, 4),
                 make_correlated(ApiId::cudaStreamSynchronize, 8000, 1500, 0)})
      .ranges(1, events)
      .gpu({make_kernel(10, 0, 800, 1), make_kernel(10, 1200, 2000, 2),
            make_kernel(10, 2500, 1000, 3), on_one});
  return write_temp_file("steps.gprof", file.bytes());
}

TEST_CASE("throughput: steps, GPU busy per device, synchronize time", "[throughput]") {
  ThroughputVisitor visitor;
  load_files({write_steps_file()}, visitor);
  REQUIRE(visitor.files().size() == 1);
  const FileThroughput& t = visitor.files()[0];
  CHECK(t.pid == 42);
  REQUIRE(t.steps);
  CHECK(t.steps->count == 2);
  CHECK(t.window_begin_ns == 1000);
  CHECK(t.window_end_ns == 9000);
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].device == 0);
  CHECK(t.devices[0].busy_ns == 2300);  // [1200, 3500) as a union; [0, 800) is outside
  CHECK(t.devices[1].device == 1);
  CHECK(t.devices[1].busy_ns == 1000);
  CHECK(t.sync_ns == 2000 + 1000);  // the second sync is clipped at the window's end
  CHECK(t.sync_calls == 2);

  const auto fields = throughput_fields(t, 32, std::nullopt);
  REQUIRE(fields.size() == 6);
  CHECK(fields[0] == Field{"Window", "8.000us (first step start to last step end)"});
  CHECK(fields[1] == Field{"Steps",
                           "2 ranges matching 'ProfilerStep*': 250000.00 steps/s, "
                           "8000000.00 samples/s (32 per step)"});
  CHECK(fields[2] == Field{"Step time", "min 4.000us, median 4.000us, p95 4.000us, max 4.000us"});
  CHECK(fields[3] == Field{"GPU 0", "busy 2.300us (28.75% of the window)"});
  CHECK(fields[4] == Field{"GPU 1", "busy 1.000us (12.50% of the window)"});
  CHECK(fields[5] == Field{"Synchronize", "3.000us in 2 calls (37.50% of the window)"});
  CHECK(render_throughput(visitor.files(), std::nullopt, TimeUnit::kNanoseconds) ==
        "Window: 8000ns (first step start to last step end)\n"
        "Steps: 2 ranges matching 'ProfilerStep*': 250000.00 steps/s\n"
        "Step time: min 4000ns, median 4000ns, p95 4000ns, max 4000ns\n"
        "GPU 0: busy 2300ns (28.75% of the window)\n"
        "GPU 1: busy 1000ns (12.50% of the window)\n"
        "Synchronize: 3000ns in 2 calls (37.50% of the window)\n");
}

TEST_CASE("throughput: without steps the window is the file's records", "[throughput]") {
  ThroughputVisitor visitor({"iteration*"});
  const std::string path = write_steps_file();
  load_files({path, path}, visitor);
  REQUIRE(visitor.files().size() == 2);
  const FileThroughput& t = visitor.files()[0];
  CHECK_FALSE(t.steps);
  CHECK(t.window_begin_ns == 0);   // the first kernel
  CHECK(t.window_end_ns == 9500);  // the end of the stream synchronize
  CHECK(t.devices[0].busy_ns == 800 + 2300);
  CHECK(t.sync_ns == 3500);
  const std::string text = render_throughput(visitor.files(), std::nullopt, std::nullopt);
  // The window holds the start-up: it says so, and the GPU's own span measures without it
  // (device 0 ran [0, 800), [1200, 3200) and [2500, 3500): 3.1 of 3.5 us).
  CHECK(text.find("[pid 42] Window: 9.500us (first to last record, start-up included; step "
                  "ranges narrow it: --step NAME)\n") == 0);
  CHECK(text.find("[pid 42] GPU 0: busy 3.100us (32.63% of the window; 88.57% of its first to "
                  "last work, 3.500us)\n") != std::string::npos);

  // A file without steps or GPU work says nothing.
  FileThroughput empty;
  CHECK(empty.empty());
  CHECK(render_throughput({empty}, std::nullopt, std::nullopt).empty());
}

}  // namespace
}  // namespace gprof::analysis
