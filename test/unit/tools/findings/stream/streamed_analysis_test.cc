// The streamed analysis (streamed_file.h) against the in-memory one on the
// hand-built capture of analyze_fixture.h and on a file with a capture window, and the one-pass
// pieces it shares with the rules (gpu_gaps.h, median_values.h) against the plain algorithms they
// replace.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/analyze_fixture.h"
#include "tools/analysis/model/steps.h"
#include "tools/findings/load.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/gpu_gaps.h"
#include "tools/findings/rules/median_values.h"
#include "tools/findings/rules/rules.h"
#include "tools/findings/stream/streamed_file.h"

namespace gprof::findings {
namespace {

using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

std::vector<const RuleSpec*> every_rule() {
  const std::span<const RuleSpec* const> rules = all_rules();
  return {rules.begin(), rules.end()};
}

std::string in_memory(const std::vector<std::string>& paths, const Scope& scope,
                      const Thresholds& thresholds) {
  const Loaded loaded = load_timelines(paths, scope);
  return render_json(analyze(loaded.timelines, every_rule(), thresholds, scope.ranges));
}

TEST_CASE("streamed findings: the fixture's, byte for byte", "[analyze][stream]") {
  const std::string path = test::write_temp_file("analyze_stream.gprof", test::analyze_capture());
  Thresholds low;
  REQUIRE_FALSE(low.set("gpu-idle.min_gap=1us"));
  REQUIRE_FALSE(low.set("excessive-sync.min_share=5%"));
  REQUIRE_FALSE(low.set("launch-bound.max_gpu_busy=100%"));
  for (const Scope& scope :
       {Scope{}, Scope{{"forward", "read_loss"}, {}, {}}, Scope{{}, {"data_loader"}, {}}}) {
    for (const Thresholds& thresholds : {Thresholds{}, low}) {
      const AnalyzedFiles streamed = analyze_files({path, path}, every_rule(), thresholds, scope);
      CHECK(streamed.in_memory.empty());
      CHECK(render_json(streamed.analysis) == in_memory({path, path}, scope, thresholds));
    }
  }
  // excessive-sync, of the fixture's synchronize calls alone (8.5% of the window), below its
  // default 10%.
  const AnalyzedFiles all = analyze_files({path}, every_rule(), Thresholds{}, Scope{});
  CHECK(all.analysis.findings.size() == 5);
  CHECK_FALSE(all.analysis.fired("excessive-sync"));
}

TEST_CASE("streamed findings: kernels named after their records get their names",
          "[analyze][stream]") {
  // Found by test_damage: a damaged file whose kernel names came after the records read
  // "<unknown kernel>" in the streamed launches view and the kernel's name in memory.
  const std::string path =
      test::write_temp_file("names_last.gprof", test::launch_phases_capture(true));
  const AnalyzedFiles streamed = analyze_files({path}, every_rule(), Thresholds{}, Scope{});
  CHECK(streamed.in_memory.empty());
  const std::string json = render_json(streamed.analysis);
  CHECK(json == in_memory({path}, Scope{}, Thresholds{}));
  CHECK(json.find("tiny_update(float*, int)") != std::string::npos);
  CHECK(json.find("<unknown kernel>") == std::string::npos);
}

// A file recorded with a capture window ([1, 9ms) and [12, 20ms)): GPU work
// of calls outside it, one record before the first call and one after the
// last (they would widen the window without --range), one unpaired inside it,
// one before its call, and the windows known only at the end.
std::string windowed_capture() {
  using namespace gprof::test;
  constexpr uint64_t kMs = 1'000'000;
  pb::FileHeader header = capture_window_header();
  SidecarBuilder b;
  b.header(header).strings({{1, "kernel_a"}, {2, "kernel_b"}, {3, "kernel_c"}});
  b.named(pb::StringEntry::NVTX,
          {{1u << 28, "ProfilerStep#0"}, {(1u << 28) + 1, "ProfilerStep#1"}});
  b.gpu({make_kernel(2, kMs / 2, 100'000, 0), make_kernel(2, 10 * kMs, 50'000, 900),
         make_kernel(3, 2 * kMs, 30'000, 901), make_kernel(1, 1 * kMs + 60'000, 40'000, 2)});
  std::vector<ApiRecord> calls;
  std::vector<RangeEvent> ranges;
  std::vector<GpuRecord> gpu;
  uint64_t correlation = 1;
  for (uint64_t step = 0; step < 2; ++step) {
    const uint64_t t = step == 0 ? 1 * kMs : 12 * kMs;
    ranges.push_back(make_range_event(RangeOp::kPush, t, (1u << 28) + step));
    for (uint64_t k = 0; k < 20; ++k, ++correlation) {
      ApiRecord call = make_call(ApiId::cudaLaunchKernel, t + k * 50'000, 5'000);
      call.kernel = 1;
      call.correlation = correlation;
      calls.push_back(call);
      if (correlation != 2)
        gpu.push_back(make_kernel(1, t + k * 50'000 + 10'000, 20'000, correlation));
    }
    ApiRecord copy = make_call(ApiId::cudaMemcpy, t + 2 * kMs, 600'000);
    copy.bytes = 4;
    copy.copy_kind = 2;
    copy.correlation = correlation;
    calls.push_back(copy);
    gpu.push_back(make_copy(2, 1, 2, 4, t + 2 * kMs + 500'000, 2'000, correlation++));
    ApiRecord sync = make_call(ApiId::cudaDeviceSynchronize, t + 3 * kMs, 1 * kMs);
    calls.push_back(sync);
    ranges.push_back(make_range_event(RangeOp::kPop, t + 5 * kMs));
  }
  b.drain({{100, calls}}, {{100, ranges}});
  gpu.push_back(make_kernel(2, 30 * kMs, 50'000, 902));
  b.gpu(gpu);
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  status.set_capture_windows_recorded(true);
  for (uint64_t ns : {1 * kMs, 9 * kMs, 12 * kMs, 20 * kMs}) status.add_capture_windows(ns);
  b.cupti(status);
  b.footer(pb::Footer{});
  return b.bytes();
}

TEST_CASE("streamed findings: a capture window's outside work left out as in memory",
          "[analyze][stream]") {
  const std::string path = test::write_temp_file("analyze_windowed.gprof", windowed_capture());
  Thresholds low;
  REQUIRE_FALSE(low.set("gpu-idle.min_gap=1us"));
  REQUIRE_FALSE(low.set("gpu-idle.min_share=0"));
  REQUIRE_FALSE(low.set("launch-bound.min_launches=1"));
  REQUIRE_FALSE(low.set("launch-bound.max_gpu_busy=100%"));
  REQUIRE_FALSE(low.set("excessive-sync.min_share=0"));
  REQUIRE_FALSE(low.set("excessive-sync.min_count=1"));
  for (const Thresholds& thresholds : {Thresholds{}, low}) {
    const AnalyzedFiles streamed = analyze_files({path}, every_rule(), thresholds, Scope{});
    CHECK(streamed.in_memory.empty());
    CHECK(render_json(streamed.analysis) == in_memory({path}, Scope{}, thresholds));
    REQUIRE(streamed.infos.size() == 1);
    const analysis::GpuCounts& gpu = streamed.infos[0].gpu;
    CHECK(gpu.records == 43);  // 40 kernels and 2 copies of the calls, 1 unpaired inside
    CHECK(gpu.unpaired == 1);
    CHECK(gpu.outside_window == 3);
    const Loaded loaded = load_timelines({path}, Scope{});
    REQUIRE(loaded.infos.size() == 1);
    CHECK(loaded.infos[0].gpu.records == gpu.records);
    CHECK(loaded.infos[0].gpu.kernels == gpu.kernels);
    CHECK(loaded.infos[0].gpu.unpaired == gpu.unpaired);
    CHECK(loaded.infos[0].gpu.outside_window == gpu.outside_window);
  }
}

TEST_CASE("streamed findings: a tally for every rule, and one for each", "[analyze][stream]") {
  stream::Tallies tallies(Thresholds{});
  std::vector<std::string_view> names;
  tallies.each([&](auto& tally) { names.push_back(tally.kRule); });
  CHECK(names.size() == all_rules().size());
  for (const RuleSpec* rule : all_rules())
    CHECK(std::count(names.begin(), names.end(), rule->id) == 1);
}

TEST_CASE("streamed findings: a missing file is described, not analyzed", "[analyze][stream]") {
  const AnalyzedFiles out =
      analyze_files({"/nonexistent/run.gprof"}, every_rule(), Thresholds{}, Scope{});
  REQUIRE(out.infos.size() == 1);
  CHECK_FALSE(out.infos[0].status.opened);
  CHECK(out.analysis.findings.empty());
}

TEST_CASE("median values: spilled or not, analysis::quantile's median", "[analyze][stream]") {
  std::mt19937_64 random(7);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{1'300'001}}) {
    MedianValues values;
    std::vector<uint64_t> plain;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = random() % 100'000;
      values.add(v);
      plain.push_back(v);
    }
    std::sort(plain.begin(), plain.end());
    CHECK(values.median() == analysis::quantile(plain, 0.5));
  }
}

// The loop GapFinder replaced (a scan of all intervals per window).
Intervals plain_gaps(const Intervals& busy, const Intervals& windows, uint64_t min_gap) {
  Intervals gaps;
  for (const auto& [begin, end] : windows) {
    if (end <= begin) continue;
    uint64_t cursor = begin;
    for (const auto& [s, e] : busy) {
      if (e <= cursor) continue;
      if (s >= end) break;
      if (s > cursor && s - cursor >= min_gap) gaps.emplace_back(cursor, s);
      cursor = std::max(cursor, e);
      if (cursor >= end) break;
    }
    if (cursor < end && end - cursor >= min_gap) gaps.emplace_back(cursor, end);
  }
  return gaps;
}

TEST_CASE("gap finder: the plain scan's gaps in one pass", "[analyze][stream]") {
  std::mt19937_64 random(11);
  for (int round = 0; round < 2000; ++round) {
    Intervals busy, windows;
    const int n = static_cast<int>(random() % 12);
    for (int i = 0; i < n; ++i) {
      const uint64_t s = random() % 100;
      busy.emplace_back(s, s + random() % 40);
    }
    std::sort(busy.begin(), busy.end());
    uint64_t at = random() % 20;
    for (int w = static_cast<int>(random() % 4); w > 0; --w) {
      const uint64_t begin = at + random() % 30;
      const uint64_t end = begin + random() % 30;
      windows.emplace_back(begin, end);
      at = end + 1;
    }
    const uint64_t min_gap = 1 + random() % 5;
    Intervals found;
    GapFinder finder(windows, min_gap, [&](uint64_t s, uint64_t e) { found.emplace_back(s, e); });
    for (const auto& [s, e] : busy) finder.add(s, e);
    finder.finish();
    INFO("round " << round);
    CHECK(found == plain_gaps(busy, windows, min_gap));
    uint64_t length = 0;
    for (const auto& [begin, end] : windows) length += end > begin ? end - begin : 0;
    CHECK(finder.window_ns() == length);
  }
}

}  // namespace
}  // namespace gprof::findings
