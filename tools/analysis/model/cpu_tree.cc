#include "tools/analysis/model/cpu_tree.h"

#include <algorithm>

#include "tools/analysis/model/nesting_walk.h"

namespace gprof::analysis {
namespace {

// The key function and rows of aggregate_cpu_nodes, as the walk asks for them.
class KeyedRows : public WalkRows {
 public:
  KeyedRows(const NodeKeyFunction& key_of, KeyAverages& rows) : key_of_(key_of), rows_(rows) {}
  uint32_t key_of(const CpuNode& node) override { return key_of_(node); }
  RowValues& row(uint32_t key) override { return rows_.row(key); }

 private:
  const NodeKeyFunction& key_of_;
  KeyAverages& rows_;
};

}  // namespace

std::vector<uint8_t> aggregate_cpu_nodes(std::vector<CpuNode>& nodes, const CpuTreeRules& rules,
                                         const NodeKeyFunction& key_of, KeyAverages& rows) {
  uint32_t max_id = 0;
  for (CpuNode& n : nodes) {
    max_id = std::max(max_id, n.id);
    n.end_ns = std::max(n.end_ns, n.start_ns);  // a clock step: zero length
  }
  std::vector<uint8_t> results(nodes.empty() ? 0 : size_t{max_id} + 1, 0);
  std::sort(nodes.begin(), nodes.end(), [](const CpuNode& a, const CpuNode& b) {
    return a.thread != b.thread ? a.thread < b.thread : walks_before(a, b);
  });
  KeyedRows keyed(key_of, rows);
  NestingWalk walk(rules, keyed);
  uint32_t thread = nodes.empty() ? 0 : nodes.front().thread;
  for (const CpuNode& n : nodes) {
    if (n.thread != thread) {
      walk.close_all();
      thread = n.thread;
    }
    results[n.id] = walk.visit(n).result;
  }
  walk.close_all();
  return results;
}

}  // namespace gprof::analysis
