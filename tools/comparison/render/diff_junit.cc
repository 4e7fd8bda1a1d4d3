#include "tools/comparison/render/diff_junit.h"

#include <fmt/format.h>

#include <vector>

#include "tools/comparison/render/failure_text.h"
#include "tools/comparison/render/xml_text.h"

namespace gprof::comparison {
namespace {

std::string property(const char* name, const std::string& value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_escape(value));
}

std::string testcase(const Comparison& comparison, size_t rule) {
  const std::string name = rule_text(comparison.options.rules[rule]);
  std::vector<const Failure*> failures;
  for (const Failure& failure : comparison.gate.failures)
    if (failure.rule == rule) failures.push_back(&failure);
  std::string out =
      fmt::format("    <testcase classname=\"gprof diff\" name=\"{}\"", xml_escape(name));
  if (failures.empty()) return out + "/>\n";
  std::string body;
  for (const Failure* failure : failures) body += failure_line(comparison, *failure, "->") + "\n";
  const std::string message =
      failures.size() == 1
          ? failure_subject(comparison, *failures.front())
          : fmt::format("{} rows: {} and {} more", failures.size(),
                        failure_subject(comparison, *failures.front()), failures.size() - 1);
  return out + fmt::format(
                   ">\n      <failure type=\"regression\" message=\"{}\">{}</failure>\n"
                   "    </testcase>\n",
                   xml_escape(name + " failed: " + message), xml_escape(body));
}

}  // namespace

std::string render_junit(const Comparison& comparison) {
  const size_t tests = comparison.options.rules.size();
  const size_t failed = comparison.gate.failed_rules();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"gprof diff\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                     tests, failed);
  out += fmt::format(
      "  <testsuite name=\"gprof diff\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "skipped=\"0\">\n",
      tests, failed);
  out += "    <properties>\n";
  out += property("base", side_line(comparison.base));
  out += property("new", side_line(comparison.now));
  out += property("group_by", comparison.options.group_by);
  out += property("noise_test", comparison.noise.description());
  out += "    </properties>\n";
  for (size_t rule = 0; rule < tests; ++rule) out += testcase(comparison, rule);
  out += "    <system-out>" + xml_escape(verdict_line(comparison)) + "</system-out>\n";
  return out + "  </testsuite>\n</testsuites>\n";
}

}  // namespace gprof::comparison
