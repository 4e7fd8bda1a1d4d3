#include "tools/analysis/model/cpu_tree.h"

#include <algorithm>

namespace gprof::analysis {
namespace {

uint64_t duration_of(const CpuNode& n) {
  return n.end_ns - n.start_ns;  // end_ns >= start_ns once sorted
}

// An event on the walk's stack and what its subtree has added up so far.
struct Open {
  const CpuNode* node;
  uint64_t children_ns = 0;
  uint64_t self_device_ns = 0;
  uint64_t device_total_ns = 0;
  int64_t self_device_mem = 0;
  int64_t device_mem = 0;
  int64_t self_host_mem = 0;
  int64_t host_mem = 0;
  KeyAverages::Key key = 0;
  bool kept = false;
  bool counts_totals = false;  // no kept ancestor of the same key
  uint8_t result = 0;
};

class Walk {
 public:
  Walk(const CpuTreeRules& rules, const NodeKeyFunction& key_of, KeyAverages& rows,
       std::vector<uint8_t>& results)
      : rules_(rules), key_of_(key_of), rows_(rows), results_(results) {}

  void visit(const CpuNode& n) {
    if (n.flags & kNodeDetached) {
      detached(n);
      return;
    }
    if (n.thread != thread_) {
      close_all();
      thread_ = n.thread;
    }
    // Close what cannot enclose `n`: it ended before `n` starts, or it ends
    // before `n` does.
    while (!stack_.empty()) {
      const CpuNode& parent = *stack_.back().node;
      if (n.start_ns < parent.end_ns && n.end_ns <= parent.end_ns) break;
      close_top();
    }
    open(n);
  }

  void close_all() {
    while (!stack_.empty()) close_top();
  }

 private:
  void open(const CpuNode& n) {
    Open o;
    o.node = &n;
    o.self_device_ns = o.device_total_ns = n.own_device_ns;
    if (n.flags & kNodeHostMemory)
      o.self_host_mem = o.host_mem = n.own_mem;
    else
      o.self_device_mem = o.device_mem = n.own_mem;
    const Open* parent = stack_.empty() ? nullptr : &stack_.back();
    const bool in_range = (n.flags & (kNodeScopeRoot | kNodeInWindow)) ||
                          (parent != nullptr && (parent->result & kResultInRange));
    const bool under_range = parent != nullptr && ((parent->node->flags & kNodeRange) ||
                                                   (parent->result & kResultUnderRange));
    o.kept = (!rules_.range_filter || in_range) && (!rules_.top_level_only || parent == nullptr);
    o.result =
        static_cast<uint8_t>((in_range ? kResultInRange : 0) |
                             (under_range ? kResultUnderRange : 0) | (o.kept ? kResultKept : 0));
    if (!stack_.empty()) stack_.back().children_ns += duration_of(n);
    if (o.kept) {
      o.key = key_of_(n);
      if (o.key >= open_per_key_.size()) open_per_key_.resize(o.key + 1, 0);
      o.counts_totals = open_per_key_[o.key] == 0;
      ++open_per_key_[o.key];
      ++rows_.row(o.key).count;
    }
    stack_.push_back(o);
  }

  void close_top() {
    const Open o = stack_.back();
    stack_.pop_back();
    const CpuNode& n = *o.node;
    const uint64_t duration = duration_of(n);
    if (o.kept) {
      Row& row = rows_.row(o.key);
      row.self_cpu_ns += o.children_ns < duration ? duration - o.children_ns : 0;
      // As torch appends a kernel to the op that launched it and never to
      // the runtime event, an API call's GPU work is its range's CUDA time;
      // the call keeps it apart, for the api view's own columns.
      const bool api_call = !(n.flags & kNodeRange);
      if (api_call)
        row.issued_device_ns += o.self_device_ns;
      else
        row.self_device_ns += o.self_device_ns;
      row.self_device_mem += o.self_device_mem;
      row.self_cpu_mem += o.self_host_mem;
      if (o.counts_totals) {
        row.cpu_total_ns += duration;
        if (!api_call) row.device_total_ns += o.device_total_ns;
        row.device_mem += o.device_mem;
        row.cpu_mem += o.host_mem;
      }
      --open_per_key_[o.key];
    }
    results_[n.id] = o.result;
    if (stack_.empty()) return;
    Open& parent = stack_.back();
    parent.device_total_ns += o.device_total_ns;
    parent.device_mem += o.device_mem;
    parent.host_mem += o.host_mem;
    // A range's own share is what the calls directly inside it did.
    if ((parent.node->flags & kNodeRange) && !(n.flags & kNodeRange)) {
      parent.self_device_ns += o.device_total_ns;
      parent.self_device_mem += o.device_mem;
      parent.self_host_mem += o.host_mem;
    }
  }

  void detached(const CpuNode& n) {
    const bool in_range = n.flags & (kNodeScopeRoot | kNodeInWindow);
    const bool kept = !rules_.range_filter || in_range;
    results_[n.id] =
        static_cast<uint8_t>((in_range ? kResultInRange : 0) | (kept ? kResultKept : 0));
    if (!kept) return;
    const uint64_t duration = duration_of(n);
    Row& row = rows_.row(key_of_(n));
    ++row.count;
    row.self_cpu_ns += duration;
    row.cpu_total_ns += duration;
  }

  const CpuTreeRules& rules_;
  const NodeKeyFunction& key_of_;
  KeyAverages& rows_;
  std::vector<uint8_t>& results_;
  std::vector<Open> stack_;
  std::vector<uint32_t> open_per_key_;  // kept events of each key on the stack
  uint32_t thread_ = 0;
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
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
    // The same interval: a range encloses the call it annotates.
    const bool a_range = a.flags & kNodeRange;
    const bool b_range = b.flags & kNodeRange;
    if (a_range != b_range) return a_range;
    return a.id < b.id;
  });
  Walk walk(rules, key_of, rows, results);
  for (const CpuNode& n : nodes) walk.visit(n);
  walk.close_all();
  return results;
}

}  // namespace gprof::analysis
