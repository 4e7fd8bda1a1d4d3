#include "tools/analysis/aggregate/ops_stream_visitor.h"

namespace gprof::analysis::ops_stream {

void OpsStream::on_header(const pb::FileHeader& header) {
  facts_.header(header);
  const bool windowed = has_capture_window(header);
  if (windowed != windowed_ && gpu_seq_ != 0) fail("a header after GPU records");
  windowed_ = windowed;
  process_ =
      strings_.id(options_.group_by == GroupBy::kRank ? rank_text(header.pid(), header.rank())
                                                      : process_text(header.pid(), header.rank()));
}

void OpsStream::on_string(const pb::StringEntry& entry) {
  facts_.string(entry);
}

uint32_t OpsStream::api_label(const ApiInfo& info, uint32_t group) {
  // The named row's label, then its group's: no name made per record.
  const uint32_t l = api_labels_.get(static_cast<uint16_t>(info.id), [&] {
    return label(RowLabel{RowKind::kApi, strings_.id(info.display), Interner::kEmpty});
  });
  return regrouped(l, group);
}

uint32_t OpsStream::kernel_label(const std::string* kernel, uint32_t kernel_id, uint32_t group) {
  const uint32_t l = kernel_labels_.get(kernel ? kernel_id : 0, [&] {
    const uint32_t name = strings_.id(kernel ? demangle(*kernel) : std::string(kUnknownKernel));
    return label(RowLabel{RowKind::kGpu, name, Interner::kEmpty, GpuKind::kKernel});
  });
  return regrouped(l, group);
}

uint32_t OpsStream::gpu_label(const GpuCursor& c, const std::string* kernel) {
  const GpuKind kind = c.kind();
  uint32_t group = Interner::kEmpty;
  if (options_.group_by == GroupBy::kLaunchConfig && kind == GpuKind::kKernel)
    group = launch_config_group(c.grid(), c.block(), c.shared_mem());
  else if (by_file())
    group = process_;
  const auto make = [&] {
    return label(RowLabel{RowKind::kGpu, strings_.id(gpu_row_name(c.record(), kernel)),
                          Interner::kEmpty, kind});
  };
  uint32_t l;
  if (kind == GpuKind::kKernel) {
    l = kernel_gpu_labels_.get(kernel ? c.kernel() : 0, make);
  } else {
    const uint64_t name_key = gpu_row_name_key(c.record(), kernel != nullptr);
    auto it = gpu_labels_.find(name_key);
    if (it == gpu_labels_.end()) it = gpu_labels_.emplace(name_key, make()).first;
    l = it->second;
  }
  // The named row's label, then its group's: no name made per record.
  l = regrouped(l, group);
  return by_work_ ? regrouped(l, work_group(c)) : l;
}

void OpsStream::on_api_batch(const ApiBatch& batch) {
  if (!why_.empty() || batch.size == 0) return;
  ThreadState& t = state(batch.tid);
  SeenSpan span;
  for (ApiCursor c(batch); c.next() && why_.empty();) add_call(c, t, span);
  seen(span);
}

[[gnu::always_inline]] inline void OpsStream::add_call(const ApiCursor& c, ThreadState& t,
                                                       SeenSpan& span) {
  const uint32_t raw = static_cast<uint32_t>(c.api());
  if (raw >= kApiTraits.size()) return;
  const ApiTraits& traits = kApiTraits[raw];
  const ApiInfo* info = traits.info;
  if (info == nullptr) return;
  const bool launch = info->fields & kFieldLaunch;
  const uint32_t kernel_id = launch ? c.kernel() : 0;
  const std::string* kernel = launch ? kernel_name(kernel_id) : nullptr;
  const uint64_t start_ns = c.start_ns();
  const uint64_t end_ns = c.end_ns();
  span.add(start_ns, end_ns);
  const uint32_t index = calls_++;
  uint32_t group = Interner::kEmpty;
  if (options_.group_by == GroupBy::kLaunchConfig && launch)
    group = launch_config_group(c.grid(), c.block(), c.shared_mem());
  else if (by_file())
    group = process_;
  uint32_t api = regrouped(api_label(*info, group), t.group);
  uint32_t call_tag = t.group;
  if (groups_in_ != nullptr) {
    if (const std::optional<uint64_t> value = groups_in_->group(index)) {
      call_tag = value_group(*value);
      api = regrouped(api, call_tag);
    }
  } else if (groups_out_ != nullptr) {
    if (index >= kGrouped - 1) return fail("more than 2^31 calls in two passes");
    call_tag = index + 1;
  }
  const bool memory = traits.memory && c.result() == 0;
  if (memory) ledger_.add(c.record(), index);
  uint32_t launch_label = UINT32_MAX;
  if (launch) {
    launch_label = regrouped(kernel_label(kernel, kernel_id, group), t.group);
    if (!filtering_) count_launch(launch_label, index);  // else once walked
  }
  const bool sync = info->category == ApiCategory::kSync;
  if (sync && !filtering_) throughput_.sync_call(start_ns, end_ns);
  // Counted once walked, with the node's end, which is never before its
  // start; throughput.cc takes the call's own.
  if (sync && filtering_ && end_ns < start_ns)
    return fail("a synchronize call that ends before it starts");
  const uint64_t correlation = ids_.call(c.correlation());
  const CallSlots::Expect expect =
      info->category == ApiCategory::kLaunch
          ? (launch ? CallSlots::Expect::kOne : CallSlots::Expect::kMany)
      : info->category == ApiCategory::kCopy || info->category == ApiCategory::kSet
          ? CallSlots::Expect::kOne
          : CallSlots::Expect::kNothing;
  if (correlation != 0 && !slots_.add_call(correlation, expect, call_tag)) {
    fail("a correlation id used twice, or by a call that came long after its GPU work");
    return;
  }
  if (groups_out_ != nullptr && correlation != 0) {
    // Work that waited for its call set the group first.
    const uint32_t tag = slots_.tag(correlation);
    if (tag & kGrouped) groups_out_->found(index, group_values_.at(group_of(tag)));
  }
  if (!slots_.pushed().empty()) keep_pushed();
  if (tagged_ && !filtering_) tagged_work_.call_tagged(correlation, t.group);
  if (info->category == ApiCategory::kLaunch) gaps_.launch(start_ns, correlation);
  t.stream->add_made(false, start_ns, [&](StreamEvent& e) {
    e.node.start_ns = start_ns;
    e.node.end_ns = std::max(end_ns, start_ns);
    e.node.thread = c.tid();
    e.node.id = index;
    e.node.label = api;
    if (in_window(start_ns, end_ns)) e.node.flags = kNodeInWindow;
    e.correlation = correlation;
    e.memory = memory;
    e.launch_label = launch_label;
    e.sync = sync;
    e.issues_work = expect != CallSlots::Expect::kNothing;
  });
}

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
  uint32_t group = by_file() ? process_ : Interner::kEmpty;
  // torch keys an op by name and shapes; an op called without tensors has
  // "[]" there. Other ranges are no ops and have no shapes.
  const bool op = seq != 0 || op_id != 0 || !name.input_shapes.empty();
  if (options_.group_by == GroupBy::kInputShape && op)
    group = strings_.id(name.input_shapes.empty() ? "[]" : name.input_shapes);
  if (options_.group_by == GroupBy::kSeq && seq != 0) group = strings_.id(std::to_string(seq - 1));
  const uint32_t l = label(RowLabel{RowKind::kRange, name.id, group});
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
    if (lost && windowed_) {
      fail("a GPU record whose external correlation left the pairing window");
      return;
    }
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
    info_.gpu.count(kind);
    ++info_.gpu.records;
    gaps_.gpu(start_ns);
    uint32_t l = 0;
    if (work && !work_label(c, l)) return;
    lost_.add(LostGpu{HeldGpu{seq, correlation, start_ns, end_ns, l, c.device(), kind},
                      work ? duration : 0, by_work_ ? work_group(c) : 0});
    if (work && !tagged_) count_work(l, seq, c.device(), start_ns, end_ns);
    return;
  }
  const CallSlots::Gpu pairing = pair_gpu(correlation, work ? duration : 0);
  // No call of its id yet: with a capture window, it may be work issued
  // outside it, which is not counted (release_held()).
  const bool hold =
      windowed_ && pairing == CallSlots::Gpu::kWaiting && !slots_.has_call(correlation);
  if (!hold) {
    info_.gpu.count(kind);
    ++info_.gpu.records;
    gaps_.gpu(start_ns);
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
    add_device_time(contexts_, context, ns, [this](uint32_t l) -> Row& { return label_rows_[l]; });
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
        if (h.kind == GpuKind::kSync) return;
        gaps_.worked(pushed);
        if (groups_out_ != nullptr) collect_first_work(pushed, pairing, g.group);
        if (tagged_) tagged_work_.add(h, pairing);
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
    add_device_time(contexts_, context, ns, [this](uint32_t l) -> Row& { return label_rows_[l]; });
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
  const bool gaps = info_.cupti && info_.cupti->gaps_size() != 0;
  auto held = held_.sorted();
  for (HeldGpu h; held.next(h);) {
    if (slots_.never_paired(h.correlation) && window.outside(h.start_ns)) {
      ++info_.gpu.outside_window;
      continue;
    }
    info_.gpu.count(h.kind);
    ++info_.gpu.records;
    // The gaps are closed: a record counts before, during or after each.
    if (gaps) gaps_.gpu(h.start_ns);
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

bool OpsStream::walked(const StreamEvent& e, const WalkVisit& v, NestingWalk& walk) {
  if (e.node.flags & kNodeRange) return true;
  const bool in_range = (v.result & kResultInRange) != 0;
  if (e.correlation != 0) {
    uint64_t gpu_ns = 0;
    if (!slots_.opened(e.correlation, v.context, gpu_ns)) return false;
    if (filtering_) {
      // The GPU rows of its work count now that the walk said; by stream or
      // device, the call keeps its first work's group.
      const uint32_t group = by_thread_ ? labels_.get(e.node.label).group
                             : by_work_ ? group_of(slots_.tag(e.correlation))
                                        : Interner::kEmpty;
      const uint32_t tag = group | (in_range ? kInScope : 0);
      slots_.set_tag(e.correlation, tag);
      tagged_work_.call_tagged(e.correlation, tag);
    }
    if (!slots_.pushed().empty()) keep_pushed();
    if (gpu_ns != 0)
      add_device_time(contexts_, v.context, gpu_ns,
                      [this](uint32_t l) -> Row& { return label_rows_[l]; });
  }
  if (filtering_ && in_range) {
    if (scope_out_ != nullptr) scope_out_->add(e.node.id);
    if (e.sync) throughput_.sync_call(e.node.start_ns, e.node.end_ns);
    if (e.launch_label != UINT32_MAX) count_launch(e.launch_label, e.node.id);
  }
  if (e.memory)
    memory_calls_[e.node.id] = MemoryCall{walk.memory_targets(), e.node.label,
                                          (v.result & kResultUnderRange) != 0, in_range};
  return true;
}

void OpsStream::add_memory(const MemoryCall& call, MemorySpace space, int64_t bytes) {
  const bool device = space == MemorySpace::kDevice;
  for (const WalkTarget& t : call.targets) {
    Row& row = label_rows_[t.key];
    const bool self = t.field == WalkField::kSelfMemory;
    if (device)
      (self ? row.self_device_mem : row.device_mem) += bytes;
    else
      (self ? row.self_cpu_mem : row.cpu_mem) += bytes;
  }
}

// Ranges still open when the process ended close at its last time, the
// innermost first, so that each finds its children closed.
bool OpsStream::close_open_pushes(uint64_t last_ns) {
  for (auto& [tid, state] : threads_) {
    std::vector<OpenPush> open;
    for (auto& [domain, stack] : state.pushes) open.insert(open.end(), stack.begin(), stack.end());
    state.pushes.clear();
    std::sort(open.begin(), open.end(), [](const OpenPush& a, const OpenPush& b) {
      return a.start_ns != b.start_ns ? a.start_ns > b.start_ns : a.id > b.id;
    });
    for (const OpenPush& p : open) {
      const uint64_t end = std::max(last_ns, p.start_ns);
      ++counts_.push_pop;
      ++counts_.open_at_exit;
      throughput_.range(p.step_pattern, p.start_ns, end);
      if (push_spans_) push_spans_->add(PushSpan{p.id, p.start_ns, end});
      if (!state.stream->set_end(p.id, end)) return false;
    }
  }
  return true;
}

bool OpsStream::finish(KeyAverages& out, std::optional<FileThroughput>* throughput, uint32_t file) {
  file_ended_ = true;
  if (why_.empty() && ids_.ambiguous())
    fail("correlation ids too far apart to unwrap as they come");
  // Work held by a capture window counts in the gaps once they are closed
  // (release_held()).
  const bool gaps = info_.cupti && info_.cupti->gaps_size() != 0;
  if (why_.empty()) pair_lost();
  if (why_.empty() && gaps && !gaps_.finish(*info_.cupti)) why_ = gaps_.why();
  if (!why_.empty()) return false;

  uint64_t last = info_.last_ns;
  if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
  if (!close_open_pushes(last)) {
    fail("ranges open at exit crossing");
    return false;
  }
  // Start/end ranges: rows at their place in the walk order, no nesting.
  const std::vector<Range> detached = start_end_.finish(last, info_.ranges);
  if (push_spans_ && !find_windows(detached)) return false;
  info_.ranges += counts_;
  NestingWalk aside(rules_, *this);
  uint32_t detached_id = 0;
  for (const Range& r : detached) {
    RangeName* name = range_name(r.name, r.domain);
    if (name == nullptr) return false;
    CpuNode n;
    n.start_ns = r.start_ns;
    n.end_ns = r.end_ns;
    n.thread = r.tid;
    n.id = detached_id++;
    n.flags =
        static_cast<uint8_t>(kNodeRange | kNodeDetached | (name->scope_root ? kNodeScopeRoot : 0) |
                             (in_window(r.start_ns, r.end_ns) ? kNodeInWindow : 0));
    n.label = range_label(*name, r.seq, r.op_id);
    if (by_thread_) n.label = regrouped(n.label, thread_group(r.tid));
    aside.visit(n);
    throughput_.range(name->step_pattern, r.start_ns, r.end_ns);
  }
  for (auto& [tid, state] : threads_) {
    if (!state.stream->finish()) {
      fail("a thread's events out of order");
      return false;
    }
  }
  if (!why_.empty()) return false;  // walked() may have failed
  // Every call has come and been walked: what still waits has no call.
  tagged_work_.no_more_calls();
  release_held();
  if (gaps) info_.gaps = gaps_.counts();
  for (const auto& [tid, name] : thread_names_) {
    const std::string* text = string_of(pb::StringEntry::NVTX, name);
    if (text == nullptr) text = string_of(pb::StringEntry::THREAD, name);
    if (text != nullptr) info_.thread_names[tid] = *text;
  }

  // Memory: deltas in time order, into the rows the walk named and [memory].
  const std::vector<MemoryDelta> deltas = ledger_.resolve();
  std::vector<uint32_t> memory_labels;
  const uint32_t memory_name = strings_.id(kMemoryRow);
  for (const MemoryDelta& d : deltas) {
    auto it = memory_calls_.find(d.call);
    if (it == memory_calls_.end()) continue;  // not walked: cannot happen
    add_memory(it->second, d.space, d.bytes);
    if (!memory_row(it->second)) continue;
    const uint32_t group =
        by_file() || by_thread_ ? labels_.get(it->second.label).group : Interner::kEmpty;
    memory_labels.push_back(label(RowLabel{RowKind::kMemory, memory_name, group}));
  }
  saw_memory_ = !deltas.empty();

  const bool joined = late_device_.join([this](uint32_t key, WalkField field, uint64_t ns) {
    add_device_field(label_rows_[key], field, ns);
  });
  if (!joined || !tagged_work_.join_late()) {
    fail("a GPU record whose call left the pairing window");
    return false;
  }
  // GPU rows in the order of their first record counted.
  if (reorder_)
    std::sort(work_order_.begin(), work_order_.end(), [&](uint32_t a, uint32_t b) {
      return work_totals_[a].first_seq < work_totals_[b].first_seq;
    });
  if (by_thread_)
    for (const auto& [tid, name] : info_.thread_names)
      named_threads_.emplace(thread_group(tid), strings_.id(thread_text(tid, &name)));

  // Rows in the order the in-memory path creates them: CPU rows by their
  // first event in walk order, GPU rows by their first record, launches of
  // a CPU-only file, [memory].
  std::vector<uint32_t> cpu;
  for (uint32_t l = 0; l < first_.size(); ++l)
    if (first_[l].seen) cpu.push_back(l);
  std::sort(cpu.begin(), cpu.end(),
            [&](uint32_t a, uint32_t b) { return first_before(first_[a].node, first_[b].node); });
  for (uint32_t l : cpu) add_row_values(out.row(final_key(l, out)), label_rows_[l]);
  for (uint32_t l : work_order_) {
    const Totals& t = work_totals_[l];
    out.add_gpu_activity(final_key(l, out), t.duration_ns, t.count);
  }
  if (filtering_)
    std::sort(launch_order_.begin(), launch_order_.end(),
              [&](uint32_t a, uint32_t b) { return launch_first_[a] < launch_first_[b]; });
  if (info_.gpu.records == 0)
    for (uint32_t l : launch_order_) out.add_gpu_activity(final_key(l, out), 0, launch_counts_[l]);
  size_t next_memory = 0;
  for (const MemoryDelta& d : deltas) {
    auto it = memory_calls_.find(d.call);
    if (it == memory_calls_.end() || !memory_row(it->second)) continue;
    add_memory_event(out.row(final_key(memory_labels[next_memory++], out)),
                     d.space == MemorySpace::kDevice, d.bytes);
  }

  info_.gpu.unpaired = slots_.unpaired() - info_.gpu.outside_window;
  if (throughput != nullptr)
    *throughput = throughput_.finish(file, info_.header ? info_.header->pid() : 0, info_.first_ns,
                                     info_.last_ns);
  return true;
}

}  // namespace gprof::analysis::ops_stream
