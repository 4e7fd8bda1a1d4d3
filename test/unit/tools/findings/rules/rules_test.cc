// The rules on the hand-built capture of analyze_fixture.h, whose numbers
// can be worked out by hand, and the thresholds that change their verdicts.
#include <catch2/catch.hpp>

#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/analyze_fixture.h"
#include "tools/findings/load.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/rules/rules.h"

namespace gprof::findings {
namespace {

const std::vector<Timeline>& fixture() {
  static const std::vector<Timeline> timelines =
      load_timelines({test::write_temp_file("analyze.gprof", test::analyze_capture())}, Scope{})
          .timelines;
  return timelines;
}

const Finding* find(const Analysis& analysis, std::string_view rule) {
  for (const Finding& f : analysis.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

double metric(const Finding& finding, std::string_view key) {
  for (const Metric& m : finding.evidence)
    if (m.key == key) return m.value;
  FAIL("no metric " << key);
  return 0;
}

// Every rule on `path` (at its defaults unless told), in memory and
// streamed, the stream having taken the file (no "read in memory").
struct BothPaths {
  Analysis in_memory;
  Analysis streamed;
};
BothPaths both_paths(const std::string& path, const Thresholds& thresholds = Thresholds{},
                     const Scope& scope = Scope{}) {
  const std::span<const RuleSpec* const> rules = all_rules();
  BothPaths out;
  out.in_memory = analyze(load_timelines({path}, scope).timelines, {rules.begin(), rules.end()},
                          thresholds, {});
  AnalyzedFiles files = analyze_files({path}, {rules.begin(), rules.end()}, thresholds, scope);
  REQUIRE(files.in_memory.empty());
  out.streamed = std::move(files.analysis);
  return out;
}

// A file of one thread (tid 100) whose push/pop ranges are `steps` "ProfilerStep#i" (range
// names 2^28 + i), its calls, GPU records and kernel names.
std::string steps_file(const std::string& name, const std::vector<ApiRecord>& calls,
                       const std::vector<RangeEvent>& ranges, const std::vector<GpuRecord>& gpu,
                       const std::vector<std::pair<uint32_t, std::string>>& kernels,
                       uint32_t steps) {
  std::vector<std::pair<uint32_t, std::string>> names;
  for (uint32_t s = 0; s < steps; ++s)
    names.emplace_back((1u << 28) + s, "ProfilerStep#" + std::to_string(s));
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  test::SidecarBuilder b;
  b.header(test::test_header())
      .cupti(status)
      .strings(kernels)
      .named(pb::StringEntry::NVTX, names)
      .calls(100, calls)
      .ranges(100, ranges)
      .gpu(gpu)
      .footer(pb::Footer{});
  return test::write_temp_file(name, b.bytes());
}

Analysis run_all(const Thresholds& thresholds = Thresholds{}) {
  const std::span<const RuleSpec* const> rules = all_rules();
  return analyze(fixture(), {rules.begin(), rules.end()}, thresholds, {});
}

TEST_CASE("analyze: every rule fires on the fixture with hand-worked numbers", "[analyze]") {
  // The fixture's synchronize calls block 8.5% of the window: below excessive-sync's default.
  CHECK_FALSE(run_all().fired("excessive-sync"));
  Thresholds thresholds;
  REQUIRE_FALSE(thresholds.set("excessive-sync.min_share=5%"));
  const Analysis a = run_all(thresholds);
  REQUIRE(a.findings.size() == 6);
  CHECK(a.steps == 10);
  CHECK(a.window_ns == 94'510'000);  // first call at 5 ms, last call ends at 99.51 ms

  const Finding* idle = find(a, "gpu-idle");
  REQUIRE(idle);
  CHECK(metric(*idle, "gaps") == 9);
  CHECK(metric(*idle, "idle_time") == 9 * 5'518'000.0);
  CHECK(idle->where.ranges.front().name == "data_loader");
  CHECK(idle->where.ranges.front().share == 1.0);
  CHECK(idle->where.steps_hit == 9);
  REQUIRE(idle->gaps.size() == 3);
  CHECK(idle->gaps[0].range == "data_loader");
  CHECK(idle->severity == Severity::kHigh);  // 52.6% of the GPU's window

  const Finding* launch = find(a, "launch-bound");
  REQUIRE(launch);
  CHECK(metric(*launch, "launches") == 120);
  // Per step: 9 tiny_op -> tiny_op (150 us) and tiny_op -> loss_kernel (50 us) are short;
  // loss_kernel -> loss_reduce (1.1 ms) and loss_reduce -> the next step pause too long.
  CHECK(metric(*launch, "short_launches") == 100);
  CHECK(metric(*launch, "median_kernel_time") == 10'000);
  CHECK(metric(*launch, "median_launch_interval") == 150'000);
  CHECK(launch->where.ranges.front().name == "forward");
  REQUIRE(launch->where.activities.size() == 1);
  CHECK(launch->where.activities.front().name == "tiny_op(float*, int)");

  const Finding* sync = find(a, "excessive-sync");
  REQUIRE(sync);
  // The 10 synchronize calls: the blocking copies (10 pageable cudaMemcpy, 9 DtoH) are the copy
  // rules' evidence, not counted twice.
  CHECK(metric(*sync, "calls") == 10);
  CHECK(metric(*sync, "blocked_time") == 10 * 800'000.0);
  CHECK(sync->where.ranges.front().name == "forward");

  const Finding* small = find(a, "small-memcpy");
  REQUIRE(small);
  CHECK(metric(*small, "copies") == 70);
  CHECK(metric(*small, "median_bytes") == 1024);
  CHECK(small->where.ranges.front().name == "upload_params");

  const Finding* dtoh = find(a, "memcpy-dtoh-sync");
  REQUIRE(dtoh);
  CHECK(metric(*dtoh, "copies") == 10);
  CHECK(metric(*dtoh, "wait_time") == 10 * 480'000.0);
  CHECK(dtoh->where.ranges.front().name == "read_loss");

  const Finding* pageable = find(a, "pageable-memcpy");
  REQUIRE(pageable);
  CHECK(metric(*pageable, "copies") == 10);
  CHECK(metric(*pageable, "bytes") == 10 * 256 * 1024.0);
  CHECK(pageable->where.ranges.front().name == "data_loader");
  CHECK(pageable->where.ranges.front().share == 1.0);
}

TEST_CASE("analyze: gpu-idle leaves the setup before the first step out", "[analyze]") {
  // Seen on an H200 (issue 32 item 4): a 4.1 s gap before torch's first step, imports and
  // model setup, was the run's main idle time. Here 400 ms pass between a setup copy and the
  // first step; the in-memory and the streamed analyses agree.
  constexpr uint64_t kSetup = 400'000'000;
  const std::string path =
      test::write_temp_file("setup.gprof", test::analyze_capture_after_setup(kSetup));
  const BothPaths both = both_paths(path);
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    const Finding* idle = find(*a, "gpu-idle");
    REQUIRE(idle);
    // The window starts with the first step: step 0's 4.02 ms before its first copy is a gap
    // now, and the 9 gaps of 5.518 ms are as before.
    CHECK(metric(*idle, "gaps") == 10);
    CHECK(metric(*idle, "idle_time") == 9 * 5'518'000.0 + 4'020'000.0);
    CHECK(metric(*idle, "longest_gap") == 5'518'000.0);
    CHECK(metric(*idle, "setup") == 1'000'000.0 + kSetup - 250'000.0);
    CHECK(metric(*idle, "setup_idle") == 1'000'000.0 + kSetup - 450'000.0);
    CHECK(idle->gaps.front().length_ns == 5'518'000);
    // Every rule's share is of the window less that setup: from the copy's call (200 us) to
    // the first step (1 ms + kSetup); what is left runs to the last call, 4 ms longer than
    // the fixture's window without setup, which begins at step 0's first copy.
    CHECK(a->setup_ns == 800'000 + kSetup);
    CHECK(a->files.front().setup_ns == a->setup_ns);
    CHECK(a->window_ns == 98'510'000);
    CHECK(a->files.front().window_ns == a->window_ns);
  }
  // Nor does any rule count what happened in the setup: with every copy small, the setup's
  // 1 MiB copy is not among them (10 pageable of 256 KiB, 60 of 1 KiB, 10 of 4 B).
  Thresholds all_small;
  REQUIRE_FALSE(all_small.set("small-memcpy.max_bytes=2MB"));
  const BothPaths small = both_paths(path, all_small);
  for (const Analysis* a : {&small.in_memory, &small.streamed}) {
    const Finding* copies = find(*a, "small-memcpy");
    REQUIRE(copies);
    CHECK(metric(*copies, "copies") == 80);
  }
}

TEST_CASE("analyze: the setup's calls are no rule's, though its work still runs", "[analyze]") {
  constexpr uint64_t kUs = 1000, kMs = 1000 * kUs;
  std::vector<ApiRecord> calls;
  std::vector<RangeEvent> ranges;
  std::vector<GpuRecord> gpu;
  uint64_t id = 0;
  const auto launch = [&](uint32_t kernel, uint64_t at, uint64_t start, uint64_t length,
                          uint32_t stream) {
    ApiRecord call = test::make_call(ApiId::cudaLaunchKernel, at, 5 * kUs);
    call.kernel = kernel;
    call.correlation = ++id;
    calls.push_back(call);
    GpuRecord work = test::make_kernel(kernel, start, length, id);
    work.stream = stream;
    gpu.push_back(work);
  };
  // Before any work: 20 cudaDeviceSynchronize of 2 ms (waiting for nothing). Then, 9 ms
  // before the first step, a compute kernel running 41 to 90 ms; in each of three steps from
  // 50 ms, an all-reduce beside it.
  for (uint64_t i = 0; i < 20; ++i)
    calls.push_back(test::make_call(ApiId::cudaDeviceSynchronize, i * 2 * kMs, 2 * kMs - 100));
  launch(1, 41 * kMs, 41 * kMs + 10 * kUs, 49 * kMs, 7);
  for (uint32_t s = 0; s < 3; ++s) {
    const uint64_t t = 50 * kMs + s * 10 * kMs;
    ranges.push_back(test::make_range_event(RangeOp::kPush, t, (1u << 28) + s));
    launch(2, t + 1 * kMs, t + 1 * kMs + 10 * kUs, 5 * kMs, 9);
    ranges.push_back(test::make_range_event(RangeOp::kPop, t + 10 * kMs - 1));
  }
  const std::vector<std::pair<uint32_t, std::string>> kernels = {
      {1, "_Z7computePf"}, {2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}};
  const auto file = [&](bool steps) {
    return steps_file(steps ? "setup_work.gprof" : "setup_work_no_steps.gprof", calls,
                      steps ? ranges : std::vector<RangeEvent>{}, gpu, kernels, 3);
  };
  // Without steps nor a start-up, the syncs before the window are still no rule's.
  const BothPaths no_steps = both_paths(file(false));
  for (const Analysis* a : {&no_steps.in_memory, &no_steps.streamed}) {
    CHECK(a->setup_ns == 0);
    CHECK_FALSE(a->fired("excessive-sync"));
  }
  const BothPaths both = both_paths(file(true));
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    // The syncs came before the window (the first launch), the compute kernel's launch before
    // the first step: neither is counted, but the kernel keeps the GPU computing beside every
    // all-reduce, so none is exposed.
    CHECK(a->setup_ns == 9 * kMs);
    CHECK_FALSE(a->fired("excessive-sync"));
    CHECK_FALSE(a->fired("exposed-comm"));
    for (const Finding& f : a->findings) CHECK(f.impact_share <= 1.0);
  }
  CHECK(render_json(both.in_memory) == render_json(both.streamed));
}

TEST_CASE("analyze: a step's idle share is of its time on every device", "[analyze]") {
  // Two GPUs in one process: in each of 5 steps of 10 ms, a 3 ms kernel on each, both idle the
  // other 7 ms. Each step is 70% idle, not 140% (its two devices' gaps added up).
  constexpr uint64_t kUs = 1000, kMs = 1000 * kUs;
  std::vector<ApiRecord> calls;
  std::vector<RangeEvent> ranges;
  std::vector<GpuRecord> gpu;
  uint64_t id = 0;
  for (uint32_t s = 0; s < 5; ++s) {
    const uint64_t t = 1 * kMs + s * 10 * kMs;
    ranges.push_back(test::make_range_event(RangeOp::kPush, t, (1u << 28) + s));
    for (uint32_t device = 0; device < 2; ++device) {
      ApiRecord call = test::make_call(ApiId::cudaLaunchKernel, t + device * kUs, 5 * kUs);
      call.kernel = 1;
      call.correlation = ++id;
      calls.push_back(call);
      GpuRecord work = test::make_kernel(1, t + 10 * kUs, 3 * kMs, id);
      work.device = device;
      gpu.push_back(work);
    }
    ranges.push_back(test::make_range_event(RangeOp::kPop, t + 10 * kMs));
  }
  const BothPaths both =
      both_paths(steps_file("two_gpus.gprof", calls, ranges, gpu, {{1, "_Z4stepPf"}}, 5));
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    const Finding* idle = find(*a, "gpu-idle");
    REQUIRE(idle);
    CHECK(metric(*idle, "median_step_idle_share") == Approx(0.7).epsilon(0.01));
    CHECK(metric(*idle, "idle_share") <= 1.0);
  }
  CHECK(render_json(both.in_memory) == render_json(both.streamed));
}

TEST_CASE("analyze: launch-bound finds a launch-bound phase the run hides", "[analyze]") {
  // Issue 32 item 1: 2000 back-to-back launches of a 1 us kernel in "optimizer" were not
  // reported, because 300 launches of a 200 us kernel in "forward" kept the run's GPU busy
  // 76% of the time between launches. In memory and streamed alike.
  const std::string path = test::write_temp_file("phases.gprof", test::launch_phases_capture());
  const BothPaths both = both_paths(path);
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    const Finding* launch = find(*a, "launch-bound");
    REQUIRE(launch);
    CHECK(metric(*launch, "launches") == 2000);
    // Each optimizer launch but the last is followed by another 10 us later: 9 us idle.
    CHECK(metric(*launch, "short_launches") == 1999);
    CHECK(metric(*launch, "idle_time") == 1999 * 9'000.0);
    CHECK(metric(*launch, "gpu_busy_share") == Approx(0.1));
    CHECK(metric(*launch, "run_launches") == 2300);
    CHECK(metric(*launch, "run_gpu_busy_share") > 0.5);
    CHECK(launch->summary.starts_with("In 'optimizer', 1999 of 2000 kernels"));
    REQUIRE_FALSE(launch->where.ranges.empty());
    CHECK(launch->where.ranges.front().name == "optimizer");
    CHECK(launch->where.activities.front().name == "tiny_update(float*, int)");
  }
}

TEST_CASE("analyze: launch-bound counts the GPU's idle time once when threads wait together",
          "[analyze]") {
  // Seen on an H200 emit_nvtx run: the main and autograd threads' waits added up to 34.6 ms of
  // idle time in a 23.2 ms window.
  const std::string path =
      test::write_temp_file("two_threads.gprof", test::two_thread_launches_capture());
  const BothPaths both = both_paths(path);
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    const Finding* launch = find(*a, "launch-bound");
    REQUIRE(launch);
    CHECK(metric(*launch, "launches") == 198);
    CHECK(metric(*launch, "short_launches") == 196);
    CHECK(metric(*launch, "idle_time") == 984'000.0);
    CHECK(launch->impact_share <= 1.0);
  }
}

TEST_CASE("analyze: gpu-idle and excessive-sync judge the steps when the window hides them",
          "[analyze]") {
  const std::string path = test::write_temp_file("eval.gprof", test::steps_then_eval_capture());
  const BothPaths both = both_paths(path);
  for (const Analysis* a : {&both.in_memory, &both.streamed}) {
    CHECK(a->window_ns == 400'010'000);  // the first launch at 1 ms to the last kernel's end
    const Finding* idle = find(*a, "gpu-idle");
    REQUIRE(idle);
    // 7 ms a step (the gap before each kernel starts 10 us into it), but the last: its gap
    // ends where eval_kernel first ran, warm-up (module loading), out of the idle time and
    // of gpu-idle's window.
    CHECK(metric(*idle, "warmup_gaps") == 1);
    CHECK(metric(*idle, "warmup_idle") == 7'000'000.0);
    CHECK(metric(*idle, "window") == 393'000'000.0);  // its work, 1.01 to 401.01 ms, less 7 ms
    CHECK(metric(*idle, "idle_share") == Approx(63.0 / 393.0).epsilon(1e-9));
    CHECK(metric(*idle, "median_step_idle_share") == Approx(0.7));
    CHECK(metric(*idle, "step_idle_time") == 63'000'000.0);
    CHECK(idle->impact_ns == 63'000'000);
    CHECK(idle->summary.find("In the median step the GPU was idle 70.0%") == 0);
    const Finding* sync = find(*a, "excessive-sync");
    REQUIRE(sync);
    CHECK(metric(*sync, "calls") == 10);
    CHECK(metric(*sync, "window_share") == Approx(30.0 / 400.01));
    CHECK(metric(*sync, "median_step_blocked_share") == Approx(0.3));
    CHECK(metric(*sync, "step_blocked_time") == 30'000'000.0);
    CHECK(sync->summary.find("In the median step a thread waited 30.0%") == 0);
    CHECK_FALSE(a->fired("launch-bound"));
  }
  CHECK(render_json(both.in_memory) == render_json(both.streamed));
  // Without the steps (a --step that matches none), the window alone decides: neither fires.
  const std::span<const RuleSpec* const> rules = all_rules();
  const Analysis no_steps =
      analyze(load_timelines({path}, Scope{{}, {"no_such_step"}, {}}).timelines,
              {rules.begin(), rules.end()}, Thresholds{}, {});
  CHECK_FALSE(no_steps.fired("gpu-idle"));
  CHECK_FALSE(no_steps.fired("excessive-sync"));
}

TEST_CASE(
    "analyze: a gap before a kernel's first run is warm-up only when short, and not in "
    "data loading",
    "[analyze]") {
  // steps_then_eval_capture: the last step's 7 ms gap ends where eval_kernel first ran.
  const std::string path = test::write_temp_file("eval.gprof", test::steps_then_eval_capture());
  SECTION("longer than warmup_gap: a stall") {
    Thresholds short_warmup;
    REQUIRE_FALSE(short_warmup.set("gpu-idle.warmup_gap=5ms"));
    const BothPaths both = both_paths(path, short_warmup);
    for (const Analysis* a : {&both.in_memory, &both.streamed}) {
      const Finding* idle = find(*a, "gpu-idle");
      REQUIRE(idle);
      CHECK(metric(*idle, "step_idle_time") == 69'990'000.0);
      CHECK(metric(*idle, "window") == 400'000'000.0);
    }
  }
  SECTION("in a data-loading range: a stall") {
    const BothPaths both = both_paths(path, Thresholds{}, Scope{{}, {}, {"ProfilerStep*"}});
    for (const Analysis* a : {&both.in_memory, &both.streamed}) {
      const Finding* idle = find(*a, "gpu-idle");
      REQUIRE(idle);
      CHECK(metric(*idle, "step_idle_time") == 69'990'000.0);
    }
    CHECK(render_json(both.in_memory) == render_json(both.streamed));
  }
}

TEST_CASE("analyze: thresholds decide whether a rule fires", "[analyze]") {
  Thresholds thresholds;
  CHECK_FALSE(thresholds.set("pageable-memcpy.min_count=11"));
  CHECK_FALSE(thresholds.set("small-memcpy.max_bytes=1KB"));
  CHECK_FALSE(thresholds.set("gpu-idle.min_gap=6ms"));
  CHECK_FALSE(thresholds.set("excessive-sync.min_share=15%"));
  CHECK_FALSE(thresholds.set("launch-bound.max_gpu_busy=0.05"));
  CHECK_FALSE(thresholds.set("memcpy-dtoh-sync.min_count=11"));
  CHECK(thresholds.get("small-memcpy", "max_bytes") == 1024);
  CHECK(thresholds.get("gpu-idle", "min_gap") == 6e6);
  CHECK(thresholds.get("excessive-sync", "min_share") == 0.15);
  CHECK(run_all(thresholds).findings.empty());
  // One short of firing, each: at the default they all fire (above).
  Thresholds lower;
  CHECK_FALSE(lower.set("pageable-memcpy.min_count=10"));
  CHECK(run_all(lower).fired("pageable-memcpy"));
}

TEST_CASE("analyze: bad thresholds are refused with the reason", "[analyze]") {
  Thresholds thresholds;
  CHECK(thresholds.set("nonsense").value().find("RULE.KEY=VALUE") != std::string::npos);
  CHECK(thresholds.set("no-such-rule.min_count=3").value().find("no rule") != std::string::npos);
  CHECK(thresholds.set("gpu-idle.min_count=3").value().find("min_gap, min_share") !=
        std::string::npos);
  CHECK(thresholds.set("gpu-idle.min_gap=3").has_value());  // a time needs its unit
  CHECK(thresholds.set("gpu-idle.min_share=130%").has_value());
  CHECK(thresholds.set("small-memcpy.min_count=2.5").has_value());
  CHECK(thresholds.set("small-memcpy.min_count=-1").has_value());
}

TEST_CASE("analyze: --range keeps the calls inside matching ranges", "[analyze]") {
  const std::vector<Timeline> timelines =
      load_timelines({test::write_temp_file("analyze_range.gprof", test::analyze_capture())},
                     Scope{{"upload_*"}, {}, {}})
          .timelines;
  REQUIRE(timelines.size() == 1);
  CHECK(timelines[0].window_ns() == 10 * 500'000);
  const Analysis a =
      analyze(timelines, {&kSmallMemcpyRule, &kPageableMemcpyRule}, Thresholds{}, {"upload_*"});
  REQUIRE(a.findings.size() == 1);
  CHECK(metric(a.findings[0], "copies") == 60);
  CHECK_FALSE(a.fired("pageable-memcpy"));
}

TEST_CASE("analyze: several files (ranks) are analyzed together", "[analyze]") {
  const std::string bytes = test::analyze_capture();
  const std::vector<Timeline> timelines =
      load_timelines({test::write_temp_file("rank0.gprof", bytes),
                      test::write_temp_file("rank1.gprof", bytes)},
                     Scope{})
          .timelines;
  REQUIRE(timelines.size() == 2);
  const Analysis a = analyze(timelines, {&kMemcpyDtohSyncRule}, Thresholds{}, {});
  CHECK(a.window_ns == 2 * 94'510'000);
  CHECK(a.steps == 20);
  REQUIRE(a.findings.size() == 1);
  CHECK(metric(a.findings[0], "copies") == 20);
  const Where& where = a.findings[0].where;
  CHECK(where.steps_hit == 20);
  REQUIRE(where.files.size() == 2);
  CHECK(where.files[0].share == 0.5);
  CHECK(where.files[1].share == 0.5);
}

TEST_CASE("analyze: which calls block the host", "[analyze]") {
  Call sync;
  sync.category = ApiCategory::kSync;
  sync.api = ApiId::cudaStreamSynchronize;
  CHECK(blocks_host(sync, nullptr));
  sync.api = ApiId::cudaStreamWaitEvent;
  CHECK_FALSE(blocks_host(sync, nullptr));
  Call copy;
  copy.category = ApiCategory::kCopy;
  Work dtoh;
  dtoh.kind = GpuKind::kMemcpy;
  dtoh.copy_kind = kCopyDtoH;
  dtoh.dst_kind = 2;  // pinned
  CHECK(blocks_host(copy, &dtoh));
  copy.async = true;
  CHECK_FALSE(blocks_host(copy, &dtoh));
  dtoh.dst_kind = kMemoryPageable;
  dtoh.start_ns = 100;
  copy.end_ns = 90;  // returned before its copy began: it did not wait
  CHECK_FALSE(blocks_host(copy, &dtoh));
  copy.end_ns = 110;
  CHECK(blocks_host(copy, &dtoh));
  copy.async = false;
  Work dtod = dtoh;
  dtod.copy_kind = 8;
  CHECK_FALSE(blocks_host(copy, &dtod));
}

}  // namespace
}  // namespace gprof::findings
