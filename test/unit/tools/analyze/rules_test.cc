// The rules on the hand-built capture of analyze_fixture.h, whose numbers
// can be worked out by hand, and the thresholds that change their verdicts.
#include <catch2/catch.hpp>

#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/analyze_fixture.h"
#include "tools/analyze/load.h"
#include "tools/analyze/rule_support.h"
#include "tools/analyze/rules.h"

namespace gprof::analyze {
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

}  // namespace
}  // namespace gprof::analyze
