// OpsStream's GPU records: paired with their calls (CallSlots), held while
// their call or external correlation may still come, counted in their rows,
// and a first pass's groups by call.
#include "tools/analysis/aggregate/ops_stream_visitor.h"

namespace gprof::analysis::ops_stream {

void OpsStream::on_gpu_batch(const GpuBatch& batch) {
  SeenSpan span;
  for (GpuCursor c(batch); c.next() && why_.empty();) add_gpu(c, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_gpu(const GpuCursor& c, SeenSpan& span) {
  const uint64_t start_ns = c.start_ns();
  const uint64_t end_ns = c.end_ns();
  // The shim drops records CUPTI could not time (profile.cc does the same).
  if (facts_.untimed(start_ns, end_ns)) return;
  span.add(start_ns, end_ns);
  const GpuKind kind = c.kind();
  const bool work = kind != GpuKind::kSync;
  const uint64_t duration = end_ns > start_ns ? end_ns - start_ns : 0;
  const uint64_t seq = gpu_seq_++;
  uint64_t correlation = ids_.other(c.correlation());
  bool lost = false;
  if (external_.any()) {
    correlation = external_.translate(correlation, lost);
    // --group-by stream|device: a call's group is its first work's, which
    // is known for this one only once the file has ended: two passes.
    if (lost && by_work_ && groups_in_ == nullptr && groups_out_ == nullptr) {
      walked_too_soon();
      return;
    }
  }
  if (lost) {
    // Its mapping left the table long ago (a GPU far behind): its call is
    // found once the file has ended (pair_lost()); its GPU row counts now,
    // or with --group-by thread and --range once its call's tag is known.
    // With a capture window, whether it counts at all depends on that call
    // (release_held()): counted then.
    uint32_t l = 0;
    if (work && !work_label(c, l)) return;
    lost_.add(LostGpu{HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind, windowed_},
                      work ? duration : 0, by_work_ ? work_group(c) : 0});
    if (windowed_) return;
    count_record(kind, start_ns);
    if (work && !tagged_) count_work(l, seq, c.device(), start_ns, end_ns);
    return;
  }
  const CallSlots::Gpu pairing = pair_gpu(correlation, work ? duration : 0);
  const bool hold = held_for_window(pairing, correlation);
  if (!hold) {
    count_record(kind, start_ns);
    if (work) gaps_.worked(correlation);
  }
  if (!work) {
    if (hold) held_.add(HeldGpu{seq, correlation, start_ns, end_ns, 0, c.device(), kind});
    return;
  }
  if (by_work_ && groups_in_ == nullptr) {
    if (groups_out_ != nullptr)
      collect_first_work(correlation, pairing, work_group(c));
    else
      first_work(correlation, pairing, work_group(c));
    if (!why_.empty()) return;
  }
  uint32_t l = 0;
  if (!work_label(c, l)) return;
  if (tagged_) {
    // The row is the call's thread's, and counts when the call is in range.
    tagged_work_.add(HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind, hold},
                     pairing);
    return;
  }
  if (hold) {
    held_.add(HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind, true});
    return;
  }
  count_work(l, seq, c.device(), start_ns, end_ns);
}

// A GPU record of call `correlation` (`ns`: its work time, 0 for a sync
// record) as CallSlots pairs it: its time to the walked call's rows, aside
// for a call pushed out, or waiting in the table.
CallSlots::Gpu OpsStream::pair_gpu(uint64_t correlation, uint64_t ns) {
  uint32_t context = WalkContexts::kNone;
  const CallSlots::Gpu pairing = slots_.gpu(correlation, ns, context);
  if (ns == 0) return pairing;
  if (pairing == CallSlots::Gpu::kOpened)
    add_device_time(contexts_, context, ns,
                    [this](uint32_t l) -> RowValues& { return values_of(l); });
  else if (pairing == CallSlots::Gpu::kLate)
    late_device_.late(correlation, ns);
  return pairing;
}

// A work record's GPU row label; false (the file fails) when its kernel's
// name has not been read.
bool OpsStream::work_label(const GpuCursor& c, uint32_t& label) {
  const std::string* kernel = nullptr;
  if (c.kind() == GpuKind::kKernel) {
    const uint32_t kernel_id = c.kernel();
    kernel = kernel_name(kernel_id);
    if (kernel == nullptr && kernel_id != 0) {
      fail("a kernel name written after its kernel");
      return false;
    }
  }
  label = gpu_label(c, kernel);
  return true;
}

// GPU records whose mapping was pushed out of the table before they came:
// paired now with the pushed id the mapping gave, as add_gpu() pairs the
// others. Their calls are read; walked or not, in the table or pushed out.
void OpsStream::pair_lost() {
  if (lost_.size() == 0) return;
  external_.join_lost(
      lost_, [](const LostGpu& g) { return g.held.correlation; },
      [this](const LostGpu& g, uint64_t pushed) {
        if (!why_.empty()) return;
        HeldGpu h = g.held;
        h.correlation = pushed;
        const CallSlots::Gpu pairing = pair_gpu(pushed, g.ns);
        // With a capture window (h.held), not counted yet: as add_gpu()
        // counts a record whose call has come, and holds one whose call may
        // still (release_held() judges it), now that every call has come.
        if (h.held && !held_for_window(pairing, pushed)) {
          h.held = false;
          count_record(h.kind, h.start_ns);
        }
        if (h.kind == GpuKind::kSync) {
          if (h.held) held_.add(h);
          return;
        }
        if (!h.held) gaps_.worked(pushed);
        if (groups_out_ != nullptr) collect_first_work(pushed, pairing, g.group);
        if (tagged_)
          tagged_work_.add(h, pairing);
        else if (h.held)
          held_.add(h);
        else if (windowed_)
          count_work(h.label, h.seq, h.device, h.start_ns, h.end_ns);
      });
  lost_ = SpillSorter<LostGpu, LostOrder>(1);
}

// --group-by stream|device: work of call `correlation`, as gpu() paired it.
void OpsStream::first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group) {
  if (correlation == 0) return;
  switch (pairing) {
    case CallSlots::Gpu::kOpened:
      if (group_of(slots_.tag(correlation)) == 0) walked_too_soon();
      return;
    case CallSlots::Gpu::kLate:
      // Only calls that may still get work are handed on when pushed out
      // (CallSlots::pushed): any other's is work after its walk too.
      if (!grouped_pushed_.test(correlation)) walked_too_soon();
      return;
    case CallSlots::Gpu::kWaiting:
      break;
  }
  // The call, or its id waiting for it (CallSlots::gpu() made the entry).
  if (slots_.tag(correlation) == 0) slots_.set_tag(correlation, group);
}

// The first of two passes: work of call `correlation`.
void OpsStream::collect_first_work(uint64_t correlation, CallSlots::Gpu pairing, uint32_t group) {
  if (correlation == 0) return;
  if (pairing == CallSlots::Gpu::kLate) {
    // Its first late work gives a pushed call its group; the rest find it
    // grouped.
    if (groups_out_->late(correlation, group_values_.at(group)))
      grouped_pushed_.set(correlation);
    else if (!grouped_pushed_.test(correlation))
      fail("GPU work of a call pushed out without its index");
    return;
  }
  const uint32_t tag = slots_.tag(correlation);
  if (tag & kGrouped) return;                                          // not its first work
  if (tag != 0) groups_out_->found(tag - 1, group_values_.at(group));  // the call's index + 1
  slots_.set_tag(correlation, group | kGrouped);  // or the id's, waiting for its call
}

// --group-by stream|device: a call is walked in its first work's row.
bool OpsStream::ready(StreamEvent& e, bool must) {
  if ((e.node.flags & kNodeRange) || e.correlation == 0) return true;
  const uint32_t group = group_of(slots_.tag(e.correlation));
  if (group != 0) {
    e.node.label = regrouped(e.node.label, group);
    return true;
  }
  if (!e.issues_work) return true;
  // Past the hold while the file is read: its work is most likely still to
  // come (a GPU that far behind), and the file goes in two passes now
  // rather than once that work has come.
  if (must && !file_ended_) walked_too_soon();
  return must;  // walked without a group: its work must not come
}

// Work no call will claim: a GPU row without a thread, or, held by the
// capture window, left to release_held().
void OpsStream::without_call(const HeldGpu& h) {
  if (h.held)
    held_.add(h);
  else if (!filtering_)  // work without a call is in no range
    count(h, Interner::kEmpty);
}

// A mapping that came after GPU records of its CUPTI id: they move to the
// call that pushed the id (external_ids.h).
void OpsStream::on_external_correlation(uint64_t cupti_id, uint64_t external_id) {
  ++info_.gpu.external_correlations;
  if (!why_.empty()) return;
  const uint64_t correlation = ids_.call(cupti_id);
  switch (external_.add(correlation, external_id)) {
    case ExternalIds::Added::kSmallIds:
      return fail("external ids pushed from 1 (a file of an older gprof)");
    case ExternalIds::Added::kConflict:
      return fail("two external ids for one correlation id");
    case ExternalIds::Added::kAgain:
      return;
    case ExternalIds::Added::kNew:
      break;
  }
  CallSlots::Gpu outcome{};
  uint64_t records = 0, ns = 0;
  uint32_t context = WalkContexts::kNone;
  uint32_t tag = 0;
  if (!slots_.rename(correlation, external_id, outcome, records, ns, context, tag))
    return fail("a GPU record given up before its external correlation came");
  if (records == 0) return;
  // Records held by the capture window under the CUPTI id are its call's
  // now (release_held()).
  if (windowed_) held_renames_.add(Rename{correlation, external_id});
  if (tagged_) tagged_work_.renamed(correlation, external_id, outcome);
  if (by_work_ && groups_in_ == nullptr && group_of(tag) != 0) {  // work waited under the CUPTI id
    if (groups_out_ != nullptr)
      collect_first_work(external_id, outcome, group_of(tag));
    else
      first_work(external_id, outcome, tag);
    if (!why_.empty()) return;
  }
  // A launch has no sync record (one carries its sync call's id): what
  // waited under a launch's id is work.
  gaps_.worked(external_id);
  if (ns == 0) return;
  if (outcome == CallSlots::Gpu::kOpened)
    add_device_time(contexts_, context, ns,
                    [this](uint32_t l) -> RowValues& { return values_of(l); });
  else if (outcome == CallSlots::Gpu::kLate)
    late_device_.late(external_id, ns);
}

void OpsStream::count_work(uint32_t label, uint64_t seq, uint32_t device, uint64_t start_ns,
                           uint64_t end_ns) {
  if (seq < counted_seq_) reorder_ = true;
  counted_seq_ = std::max(counted_seq_, seq);
  if (work_totals_.size() <= label) work_totals_.resize(size_t{label} + 1);
  Totals& totals = work_totals_[label];
  if (totals.count++ == 0) work_order_.push_back(label);
  totals.first_seq = std::min(totals.first_seq, seq);
  totals.duration_ns += end_ns > start_ns ? end_ns - start_ns : 0;
  throughput_.work(device, start_ns, end_ns);
}

// Once the file has ended: the held records whose call came, or that
// started in a window (CaptureWindows), count as the others did; the rest
// were issued outside the window and are left out.
void OpsStream::release_held() {
  if (!windowed_) return;
  rename_held();
  const CaptureWindows window(true, info_.cupti);
  auto held = held_.sorted();
  for (HeldGpu h; held.next(h);) {
    if (slots_.never_paired(h.correlation) && window.outside(h.start_ns)) {
      ++info_.gpu.outside_window;
      continue;
    }
    // The gaps are closed: a record counts before, during or after each.
    count_record(h.kind, h.start_ns);
    // With --range, only work no call claimed is held here: in no range.
    if (h.kind == GpuKind::kSync || filtering_) continue;
    count_work(h.label, h.seq, h.device, h.start_ns, h.end_ns);
  }
  held_ = SpillSorter<HeldGpu, BySeq>(1);
}

// Held records whose CUPTI id an external correlation renamed after they
// were held: under their call's id (which decides whether they paired),
// through a sort by id and a join with the renames, then in seq order again.
void OpsStream::rename_held() {
  if (held_renames_.size() == 0) return;
  SpillSorter<HeldGpu, HeldByCorrelation> by_id(kHeldBudget);
  {
    auto held = held_.sorted();
    for (HeldGpu h; held.next(h);) by_id.add(h);
  }
  SpillSorter<HeldGpu, BySeq> renamed(kHeldBudget);
  auto renames = held_renames_.sorted();
  Rename r{};
  bool has_r = renames.next(r);
  auto records = by_id.sorted();
  for (HeldGpu h; records.next(h);) {
    while (has_r && r.from < h.correlation) has_r = renames.next(r);
    if (has_r && r.from == h.correlation) h.correlation = r.to;
    renamed.add(h);
  }
  held_ = std::move(renamed);
}

}  // namespace gprof::analysis::ops_stream
