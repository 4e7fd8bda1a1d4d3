#include "tools/trace/time_window.h"

#include "tools/analysis/render/duration.h"

#include <utility>

namespace gprof::trace {

ParsedWindow parse_window(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    return {std::nullopt, "'" + std::string(text) + "' is not START:END (e.g. 1.5s:2s, 100ms:)"};
  TimeWindow window;
  for (const auto& [part, bound] : {std::pair{text.substr(0, colon), &window.begin_ns},
                                    {text.substr(colon + 1), &window.end_ns}}) {
    if (part.empty()) continue;
    const std::optional<int64_t> ns = analysis::parse_duration_ns(part);
    if (!ns)
      return {std::nullopt,
              "'" + std::string(part) + "' is not a time with a unit (ns, us, ms, s), e.g. 250ms"};
    *bound = *ns;
  }
  if (window.end_ns < window.begin_ns)
    return {std::nullopt, "'" + std::string(text) + "' ends before it starts"};
  return {window, ""};
}

}  // namespace gprof::trace
