// The streamed analysis (streamed_file.h) against the in-memory one on the
// hand-built capture of analyze_fixture.h, and the one-pass pieces it shares
// with the rules (gpu_gaps.h, median_values.h) against the plain algorithms
// they replace.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/analyze_fixture.h"
#include "tools/analysis/model/steps.h"
#include "tools/analyze/load.h"
#include "tools/analyze/render/render.h"
#include "tools/analyze/rules/gpu_gaps.h"
#include "tools/analyze/rules/median_values.h"
#include "tools/analyze/rules/rules.h"

namespace gprof::analyze {
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
}  // namespace gprof::analyze
