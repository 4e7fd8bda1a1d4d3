// OpsStream's NVTX ranges: their names and labels, each thread's pushes and
// pops into its walk, start/end ranges kept for the end, and the first
// pass's windows.
#include "tools/analysis/aggregate/ops_stream_visitor.h"

namespace gprof::analysis::ops_stream {

OpsStream::RangeName* OpsStream::find_range_name(uint32_t name, uint32_t domain) {
  const uint64_t key = range_key(name, domain);
  auto it = range_names_.find(key);
  if (it != range_names_.end()) return cache_name(key, &it->second);
  const std::string* message = string_of(pb::StringEntry::NVTX, name);
  const std::string* domain_name = string_of(pb::StringEntry::DOMAIN, domain);
  // The in-memory path names ranges once the file has ended; a name that
  // comes after its range is left to it.
  if ((name != 0 && message == nullptr) || (domain != 0 && domain_name == nullptr)) {
    fail("an NVTX name written after its range");
    return nullptr;
  }
  RangeName n;
  n.row = range_row_name(message, domain_name);
  n.input_shapes = message ? std::string(torch_input_shapes(*message)) : std::string();
  n.id = strings_.id(n.row);
  n.step_pattern = throughput_.step_pattern(n.row);
  n.scope_root = glob_match_any(options_.ranges, n.row);
  return cache_name(key, &range_names_.emplace(key, std::move(n)).first->second);
}

uint32_t OpsStream::make_range_label(RangeName& name, uint64_t seq, uint64_t op_id) {
  const uint32_t group = range_group(options_.group_by, by_file() ? process_ : Interner::kEmpty,
                                     seq, op_id, name.input_shapes, strings_);
  const RowLabel row{RowKind::kRange, name.id, group};
  const uint32_t l = group & kNumberGroup ? number_rows_.label(row) : label(row);
  if (!by_numbers_) name.label = l;
  return l;
}

void OpsStream::on_range_batch(const RangeBatch& batch) {
  if (!why_.empty() || batch.size == 0) return;
  ThreadState& t = state(batch.tid);
  SeenSpan span;
  for (RangeCursor c(batch); c.next() && why_.empty();) add_range(c, t, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_range(const RangeCursor& c, ThreadState& t,
                                                        SeenSpan& span) {
  const RangeOp op = c.op();
  if (op == RangeOp::kNameThread || op == RangeOp::kNameCategory) {
    if (op == RangeOp::kNameThread) thread_names_[static_cast<uint32_t>(c.range_id())] = c.name();
    return;  // categories name nothing the tables show
  }
  const uint64_t time_ns = c.time_ns();
  span.add(time_ns, time_ns);
  bool ok = true;
  switch (op) {
    case RangeOp::kPush: {
      const uint32_t domain = c.domain();
      RangeName* name = range_name(c.name(), domain);
      if (name == nullptr) return;
      const uint32_t id = range_seq_++;
      const uint32_t label = regrouped(range_label(*name, c.seq(), c.op_id()), t.group);
      t.pushes_of(domain).push_back(OpenPush{id, time_ns, label, name->step_pattern});
      t.stream->add_made(true, time_ns, [&](StreamEvent& s) {
        s.node.start_ns = time_ns;
        s.node.end_ns = kOpenEnd;
        s.node.thread = c.tid();
        s.node.id = id;
        s.node.flags = static_cast<uint8_t>(
            kNodeRange | (name->scope_root ? kNodeScopeRoot : 0) |
            (found_ != nullptr && found_->pushes_in_window.contains(id) ? kNodeInWindow : 0));
        s.node.label = label;
      });
      break;
    }
    case RangeOp::kPop: {
      std::vector<OpenPush>& stack = t.pushes_of(c.domain());
      if (stack.empty()) {
        ++counts_.unbalanced_pops;
        t.stream->advance(time_ns);
        break;
      }
      const OpenPush push = stack.back();
      stack.pop_back();
      const uint64_t end = std::max(time_ns, push.start_ns);
      ++counts_.push_pop;
      throughput_.range(push.step_pattern, push.start_ns, end);
      if (push_spans_) push_spans_->add(PushSpan{push.id, push.start_ns, end});
      ok = t.stream->set_end(push.id, end);
      t.stream->advance(time_ns);
      break;
    }
    case RangeOp::kStart:
      if (filtering_) {
        // A start/end range --range names is a window in time (cpu_tree.h),
        // over events of every thread walked before its end is read.
        const RangeName* name = range_name(c.name(), c.domain());
        if (name == nullptr) return;
        if (name->scope_root && found_ == nullptr)
          return fail_for_two_passes("--range naming a start/end range");
      }
      ++range_seq_;  // the in-memory path numbers pushes, starts and marks together
      start_end_.add(c.event());
      t.stream->advance(time_ns);
      break;
    case RangeOp::kEnd:
      start_end_.add(c.event());
      t.stream->advance(time_ns);
      break;
    case RangeOp::kMark:
      ++range_seq_;
      ++counts_.marks;
      t.stream->advance(time_ns);
      break;
    case RangeOp::kNameThread:
    case RangeOp::kNameCategory:
      break;  // above
  }
  if (!ok) fail("ranges of a thread that cross");
}

// The first of two passes, once the file has ended: the windows of the
// start/end ranges --range names, and the push/pop ranges inside one.
bool OpsStream::find_windows(const std::vector<Range>& detached) {
  for (const Range& r : detached) {
    const RangeName* name = range_name(r.name, r.domain);
    if (name == nullptr) return false;
    if (name->scope_root) finding_->windows.add(r.start_ns, r.end_ns);
  }
  if (finding_->windows.empty()) return true;
  finding_->windows.merge();
  auto spans = push_spans_->sorted();
  for (PushSpan s; spans.next(s);)
    if (finding_->windows.contains(s.start_ns, s.end_ns))
      finding_->pushes_in_window.add(static_cast<uint32_t>(s.id));
  return true;
}

}  // namespace gprof::analysis::ops_stream
