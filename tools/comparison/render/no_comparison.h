// What `gpuprof diff --output-md/json/junit` write when nothing could be
// compared (exit 2): a CI job's later steps read those files whatever
// happened (a summary step runs `cat diff.md`), and a missing file would
// fail them with a message about the file rather than about the diff.
#pragma once

#include <string>

namespace gprof::comparison {

// `what`: one sentence on why there is no comparison.
std::string render_no_comparison_markdown(const std::string& what);
std::string render_no_comparison_json(const std::string& what);   // "verdict": "error"
std::string render_no_comparison_junit(const std::string& what);  // one <error> test case

}  // namespace gprof::comparison
