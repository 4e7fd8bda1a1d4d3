// Every output format on one hand-made comparison: a regression, a new and
// a vanished row whose names hold Markdown, XML and workflow-command
// characters.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "test/unit/tools/comparison/test_rows.h"
#include "tools/comparison/compare/rule_sets.h"
#include "tools/comparison/render/diff_json.h"
#include "tools/comparison/render/diff_junit.h"
#include "tools/comparison/render/diff_markdown.h"
#include "tools/comparison/render/diff_text.h"
#include "tools/comparison/render/github_annotations.h"
#include "tools/comparison/render/xml_text.h"

namespace gprof::comparison {
namespace {

using test::cpu_row;
using test::kernel_row;
using test::run_of;

const char* const kOdd = "a|b*_c<d>&e 50%";

// The strict set (rule_sets.h), so that the new and the vanished row fail
// too and every format has their failures to write.
Comparison sample(std::vector<std::string> rules = test::rule_set_texts(kStrictRules)) {
  return test::compare_runs({run_of({kernel_row("slow", 2, 4000), kernel_row("gone", 1, 1000),
                                     cpu_row("api", "cudaLaunchKernel", 3, 900, 5000)})},
                            {run_of({kernel_row("slow", 2, 6000), kernel_row(kOdd, 1, 500),
                                     cpu_row("api", "cudaLaunchKernel", 3, 900, 6500)})},
                            rules);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A small XML checker: elements nest and close, attributes are quoted, and
// '<' and '&' appear in text only as markup and entities.
bool well_formed(const std::string& xml, std::string& why) {
  std::vector<std::string> open;
  size_t i = 0;
  if (xml.rfind("<?xml ", 0) == 0) i = xml.find("?>") + 2;
  auto name_end = [&](size_t from) { return xml.find_first_of(" />\n", from); };
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const size_t semi = xml.find(';', i);
      const std::string entity = xml.substr(i, semi == std::string::npos ? 1 : semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" &&
          entity != "&apos;") {
        why = "bad entity at " + std::to_string(i);
        return false;
      }
      i = semi + 1;
      continue;
    }
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const size_t close = xml.find('>', i);
    if (close == std::string::npos) return why = "unclosed tag", false;
    const std::string tag = xml.substr(i + 1, close - i - 1);
    if (tag.empty()) return why = "empty tag", false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return why = "mismatched </" + tag, false;
      open.pop_back();
    } else {
      const std::string name = tag.substr(0, name_end(i + 1) - i - 1);
      if (count(tag, "\"") % 2 != 0 || tag.find('<') != std::string::npos)
        return why = "bad attributes in <" + name, false;
      if (tag.back() != '/') open.push_back(name);
    }
    i = close + 1;
  }
  if (!open.empty()) return why = "unclosed <" + open.back(), false;
  return true;
}

TEST_CASE("formats: the sample has a regression, a new and a vanished row", "[diff][formats]") {
  const Comparison comparison = sample();
  // self_cuda: slow (+50%), the API row (+30%) and the new kernel (from 0); the total
  // (5 -> 6.5 us); gpu.count and gpu.new: the new kernel (from 0); gpu.vanished: gone.
  CHECK(comparison.gate.failed_rules() == 5);
  CHECK(comparison.gate.failures.size() == 7);
}

TEST_CASE("formats: the default gate lists the new and vanished rows without failing them",
          "[diff][formats]") {
  const Comparison comparison = sample({});
  // The total (5 -> 6.5 us), slow (+50%) and the API row (+30%): the rows on both sides.
  CHECK(comparison.gate.failures.size() == 3);
  const std::string text = render_text(comparison);
  CHECK(text.find("New rows, only in NEW (1):\n  kernel a|b*_c<d>&e 50%: 1 call, Self CUDA "
                  "0.500us, CPU total 0.000us\n") != std::string::npos);
  CHECK(text.find("REGRESSION: 2 of 5 rules failed: 3 failures on 2 rows and 1 total\n") !=
        std::string::npos);
  CHECK(text.find("(the default gate)") != std::string::npos);
}

TEST_CASE("formats: no infinite percentages, a new row's amount instead", "[diff][formats]") {
  for (const Comparison& comparison : {sample(), sample({})}) {
    for (const std::string& out :
         {render_text(comparison), render_markdown(comparison), render_json(comparison),
          render_junit(comparison), render_github_annotations(comparison)}) {
      INFO(out);
      CHECK(out.find("inf%") == std::string::npos);
      CHECK(out.find("+inf") == std::string::npos);
    }
  }
  const Comparison strict = sample();
  const std::string text = render_text(strict);
  CHECK(
      text.find("  kernel a|b*_c<d>&e 50%: self_cuda:+10%: 0.000us -> 0.500us (new: 0.500us)\n") !=
      std::string::npos);
  CHECK(text.find("  kernel a|b*_c<d>&e 50%: gpu.count:+0%: 0 -> 1 (new: 1)\n") !=
        std::string::npos);
  // The tables' % column: "new" from nothing, "gone" to nothing.
  const auto table_line = [&](const std::string& start) {
    const size_t at = text.find("\n" + start);
    return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  };
  const std::string added = table_line("a|b*_c<d>&e 50%");
  CHECK(added.find(" +0.500us ") < added.rfind(" new "));
  const std::string gone = table_line("gone ");
  CHECK(gone.find(" -1.000us ") < gone.rfind(" gone "));
  const std::string md = render_markdown(strict);
  CHECK(md.find("| self\\_cuda:+10% | 0.000us | 0.500us | new |") != std::string::npos);
  CHECK(md.find("0.500us (new)") != std::string::npos);
}

TEST_CASE("formats: text has the table, totals, one-side rows and the verdict", "[diff][formats]") {
  const std::string text = render_text(sample());
  CHECK(text.rfind("gpuprof diff\n  base: base.gprof (1 run)\n  new:  new.gprof (1 run)\n", 0) ==
        0);
  CHECK(text.find("noise test: none (one run on each side") != std::string::npos);
  CHECK(text.find("Base  New  Change") != std::string::npos);
  CHECK(text.find("New rows, only in NEW (1):\n  kernel a|b*_c<d>&e 50%: 1 call, Self CUDA "
                  "0.500us, CPU total 0.000us (fails)\n") != std::string::npos);
  CHECK(text.find("Vanished rows, only in BASE (1):\n  kernel gone: 1 call,") != std::string::npos);
  CHECK(text.find("REGRESSION: 5 of 5 rules failed: 7 failures on 4 rows and 1 total\n") !=
        std::string::npos);
  CHECK(text.find("  kernel slow: self_cuda:+10%: 4.000us -> 6.000us (+2.000us, +50.0%)\n") !=
        std::string::npos);
  CHECK(text.find("Self CUDA time total  5.000us  6.500us  +1.500us  +30.0%\n") !=
        std::string::npos);
}

TEST_CASE("formats: text cuts long names", "[diff][formats]") {
  const RunRows run = run_of({kernel_row(std::string(80, 'x'), 1, 100)});
  const std::string text = render_text(test::compare_runs({run}, {run}), 20);
  CHECK(text.find(std::string(17, 'x') + "...") != std::string::npos);
  CHECK(text.find(std::string(18, 'x')) == std::string::npos);
}

TEST_CASE("formats: markdown writes names as code spans and shows the verdict", "[diff][formats]") {
  const std::string md = render_markdown(sample());
  CHECK(md.rfind("### ❌ gprof diff: REGRESSION: 5 of 5 rules failed: 7 failures on 4 rows and "
                 "1 total\n",
                 0) == 0);
  CHECK(md.find("#### Failures\n\n| Row | Rule | Base | New | % |\n") != std::string::npos);
  CHECK(md.find("| kernel `slow` | self\\_cuda:+10% | 4.000us | 6.000us | +50.0% |") !=
        std::string::npos);
  CHECK(md.find("`a\\|b*_c<d>&e 50%`") != std::string::npos);
  CHECK(md.find("a|b") == std::string::npos);
  CHECK(md.find("#### New rows, only in NEW (1)") != std::string::npos);
  CHECK(md.find("#### Vanished rows, only in BASE (1)") != std::string::npos);
  CHECK(md.find("noise test: none") != std::string::npos);
  // The compact changes table: NEW and its change, the failed cell marked.
  CHECK(md.find("| Row | Status | # of Calls | Self CUDA | CPU total |\n") != std::string::npos);
  CHECK(md.find("| kernel `slow` | regression | 2 | ❌ **6.000us (+50.0%)** |") !=
        std::string::npos);

  const RunRows run = run_of({kernel_row("k", 1, 100)});
  CHECK(render_markdown(test::compare_runs({run}, {run})).rfind("### ✅ gprof diff: OK", 0) == 0);
}

TEST_CASE("formats: json holds every row, rule and failure", "[diff][formats]") {
  const nlohmann::json doc = nlohmann::json::parse(render_json(sample()));
  CHECK(doc["schema"] == "gprof.diff");
  CHECK(doc["version"] == 1);
  CHECK(doc["verdict"] == "regression");
  CHECK(doc["failed_rules"] == 5);
  CHECK(doc["base"]["runs"].size() == 1);
  CHECK(doc["base"]["runs"][0]["files"][0] == "base-0");
  CHECK(doc["rules"].size() == 5);
  CHECK(doc["rules"][0]["rule"] == "self_cuda:+10%");
  CHECK(doc["rules"][0]["threshold_pct"] == 10.0);
  CHECK(doc["rules"][0]["failed"] == true);
  CHECK(doc["rules"][3]["check"] == "new");
  CHECK(doc["noise_test"]["applied"] == false);
  REQUIRE(doc["rows"].size() == 4);
  const nlohmann::json& slow = doc["rows"][0];  // the largest Self CUDA change
  CHECK(slow["name"] == "slow");
  CHECK(slow["status"] == "regression");
  CHECK(slow["metrics"]["self_cuda"]["base"]["median"] == 4000.0);
  CHECK(slow["metrics"]["self_cuda"]["new"]["max"] == 6000.0);
  CHECK(slow["metrics"]["self_cuda"]["change"] == 2000.0);
  CHECK(slow["metrics"]["self_cuda"]["relative_change_pct"] == 50.0);
  bool saw_new = false;
  for (const auto& row : doc["rows"]) {
    if (row["name"] != kOdd) continue;
    saw_new = true;
    CHECK(row["status"] == "new");
    CHECK(row["metrics"]["self_cuda"]["relative_change_pct"].is_null());  // from 0
  }
  CHECK(saw_new);
  CHECK(doc["totals"]["self_cuda"]["base"]["median"] == 5000.0);
  REQUIRE(doc["failures"].size() == 7);
  CHECK(doc["failures"][0]["message"] ==
        "kernel slow: self_cuda:+10%: 4.000us -> 6.000us (+2.000us, +50.0%)");
  CHECK(doc["failures"][2]["row"]["name"] == kOdd);
  CHECK(doc["failures"][3]["row"].is_null());  // the total
}

TEST_CASE("formats: junit is well-formed, a testcase per rule", "[diff][formats]") {
  const std::string xml = render_junit(sample());
  std::string why;
  INFO(xml);
  CHECK(well_formed(xml, why));
  INFO(why);
  CHECK(count(xml, "<testcase ") == 5);
  CHECK(count(xml, "<failure ") == 5);
  CHECK(xml.find("<testsuite name=\"gprof diff\" tests=\"5\" failures=\"5\"") != std::string::npos);
  CHECK(xml.find("kernel a|b*_c&lt;d&gt;&amp;e 50%: gpu.new: not in BASE, 1 call in NEW") !=
        std::string::npos);
  CHECK(xml.find("<d>") == std::string::npos);

  const RunRows run = run_of({kernel_row("k", 1, 100)});
  const std::string passing = render_junit(test::compare_runs({run}, {run}));
  CHECK(well_formed(passing, why));
  CHECK(count(passing, "<failure ") == 0);
  CHECK(passing.find("<testcase classname=\"gprof diff\" name=\"matched.gpu.count:+0%\"/>") !=
        std::string::npos);
}

TEST_CASE("formats: xml escaping of markup, control bytes and bad UTF-8", "[diff][formats]") {
  CHECK(xml_escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&apos;");
  CHECK(xml_escape("tab\tnl\n") == "tab\tnl\n");
  CHECK(xml_escape(std::string("bell\x07")) == "bell\xEF\xBF\xBD");
  CHECK(xml_escape("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(xml_escape("bad\xC3(") == "bad\xEF\xBF\xBD(");
  CHECK(xml_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("formats: github annotations, one per failed row or total", "[diff][formats]") {
  const std::string lines = render_github_annotations(sample());
  INFO(lines);
  // 7 failures on 4 rows and 1 total.
  CHECK(count(lines, "::error title=gprof regression::") == 5);
  CHECK(count(lines, "\n") == 5);
  CHECK(lines.find("::error title=gprof regression::kernel slow: self_cuda:+10%25: 4.000us -> "
                   "6.000us (+2.000us, +50.0%25)\n") != std::string::npos);
  CHECK(lines.find("a|b*_c<d>&e 50%25: self_cuda:+10%25: 0.000us -> ") != std::string::npos);
  CHECK(lines.find("; gpu.new: not in BASE, ") != std::string::npos);
  CHECK(escape_workflow_data("a%b\r\nc") == "a%25b%0D%0Ac");
  const RunRows run = run_of({kernel_row("k", 1, 100)});
  CHECK(render_github_annotations(test::compare_runs({run}, {run})).empty());
}

// 2000 kernels, each twice as slow: 2000 failures of self_cuda:+10%, 2000
// of the default gate's others... as many as a big model's diff could have.
Comparison many_failures(size_t kernels) {
  std::vector<RunRow> base, now;
  for (size_t i = 0; i < kernels; ++i) {
    const std::string name = "kernel_number_" + std::to_string(i) + "<float, 128, 64>(float*)";
    base.push_back(kernel_row(name, 1, 1000));
    now.push_back(kernel_row(name, 1, 2000));
  }
  return test::compare_runs({run_of(base)}, {run_of(now)});
}

TEST_CASE("formats: markdown and annotations stay within GitHub's limits", "[diff][formats]") {
  const Comparison big = many_failures(2000);
  REQUIRE(big.gate.failures.size() == 2001);  // each row and the total
  const std::string md = render_markdown(big);
  CHECK(md.size() <= 65536);
  // 50 lines: the total's failure (its rule comes first), then 49 kernels'.
  CHECK(count(md.substr(0, md.find("#### Changes")), "| kernel `kernel_number_") == 49);
  CHECK(md.find("… and 1951 more failures: the JSON output (`--output-json`) has them "
                "all.") != std::string::npos);
  CHECK(md.rfind("### ❌ gprof diff: REGRESSION", 0) == 0);

  const std::string lines = render_github_annotations(big);
  CHECK(count(lines, "::error ") == 10);
  CHECK(lines.find("::error title=gprof regression::and 1992 more rows or totals failed (GitHub "
                   "shows 10 annotations a step)") != std::string::npos);
  // Ten failed rows and totals are ten annotations.
  CHECK(count(render_github_annotations(many_failures(9)), "::error ") == 10);
  CHECK(render_github_annotations(many_failures(9)).find("more rows or totals") ==
        std::string::npos);
}

}  // namespace
}  // namespace gprof::comparison
