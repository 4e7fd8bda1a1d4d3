#include "tools/findings/finding.h"

namespace gprof::findings {

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      break;
  }
  return "low";
}

Severity severity_of(double impact_share) {
  if (impact_share >= 0.5) return Severity::kHigh;
  if (impact_share >= 0.2) return Severity::kMedium;
  return Severity::kLow;
}

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::kTime:
      return "ns";
    case Unit::kBytes:
      return "bytes";
    case Unit::kShare:
      return "ratio";
    case Unit::kPerStep:
      return "per_step";
    case Unit::kCount:
      break;
  }
  return "count";
}

}  // namespace gprof::findings
