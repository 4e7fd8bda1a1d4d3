// The rules, one file each (rule_*.cc); rules.cc lists them in one table.
#pragma once

#include "tools/findings/rules/rule.h"

namespace gprof::findings {

extern const RuleSpec kPageableMemcpyRule;
extern const RuleSpec kSmallMemcpyRule;
extern const RuleSpec kExcessiveSyncRule;
extern const RuleSpec kLaunchBoundRule;
extern const RuleSpec kGpuIdleRule;
extern const RuleSpec kMemcpyDtohSyncRule;
extern const RuleSpec kExposedCommRule;
extern const RuleSpec kStragglerRule;

}  // namespace gprof::findings
