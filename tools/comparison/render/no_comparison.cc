#include "tools/comparison/render/no_comparison.h"

#include <nlohmann/json.hpp>

#include "tools/comparison/render/xml_text.h"

namespace gprof::comparison {

std::string render_no_comparison_markdown(const std::string& what) {
  return "### ⚠️ gprof diff: no comparison\n\n" + what + "\n";
}

std::string render_no_comparison_json(const std::string& what) {
  const nlohmann::ordered_json doc = {
      {"schema", "gprof.diff"}, {"version", 1}, {"verdict", "error"}, {"error", what}};
  return doc.dump(2) + "\n";
}

std::string render_no_comparison_junit(const std::string& what) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
         "  <testsuite name=\"gprof diff\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
         "    <testcase name=\"comparison\" classname=\"gprof diff\">\n"
         "      <error message=\"" +
         xml_escape(what) + "\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
}

}  // namespace gprof::comparison
