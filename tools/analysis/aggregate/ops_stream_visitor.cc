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
          ? (info->record_per_item ? CallSlots::Expect::kMany : CallSlots::Expect::kOne)
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
                      [this](uint32_t l) -> RowValues& { return values_of(l); });
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
    RowValues& row = values_of(t.key);
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
    add_device_field(values_of(key), field, ns);
  });
  if (!joined || !tagged_work_.join_late()) {
    fail("a GPU record whose call left the pairing window");
    return false;
  }
  // Held work whose call was pushed out of the table counts once joined
  // with its call's tag (join_late), in the gaps too.
  if (gaps) info_.gaps = gaps_.counts();
  // The walk and the pairing are read no more: their memory goes before
  // the rows are made, which with a row per op (--group-by seq: 137K rows
  // from 1M records) is the peak. The walks hold the contexts: first.
  const uint64_t unpaired = slots_.unpaired();
  threads_.clear();
  last_state_ = nullptr;
  contexts_ = WalkContexts();
  slots_ = CallSlots(0, 0);
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
  // a CPU-only file, [memory]. Each at its place (row_runs.h), which rows
  // of number labels that left memory (number_rows.h) are merged by.
  std::vector<uint32_t> cpu = number_rows_.walked_labels();
  for (uint32_t l = 0; l < first_.size(); ++l)
    if (first_[l].seen) cpu.push_back(l);
  std::sort(cpu.begin(), cpu.end(),
            [&](uint32_t a, uint32_t b) { return first_of(a) < first_of(b); });
  // Room for every row at once (grown, the rows would be held twice while
  // copied); memory_labels has a label per allocation, few of them distinct.
  std::vector<uint32_t> memory_rows = memory_labels;
  std::sort(memory_rows.begin(), memory_rows.end());
  memory_rows.erase(std::unique(memory_rows.begin(), memory_rows.end()), memory_rows.end());
  out.reserve(out.row_count() + cpu.size() + work_order_.size() +
              (info_.gpu.records == 0 ? launch_order_.size() : 0) + memory_rows.size());
  std::vector<uint32_t>().swap(memory_rows);
  for (uint32_t l : cpu)
    add_row_values(out.row(final_key(l, out, first_of(l).place(file_))), values_of(l));
  std::vector<FirstEvent>().swap(first_);
  std::vector<RowValues>().swap(label_rows_);  // read for the last time
  if (number_rows_.evicted()) out.add_spilled(number_rows_.finish());
  uint64_t rank = 0;
  for (uint32_t l : work_order_) {
    const Totals& t = work_totals_[l];
    out.add_gpu_activity(final_key(l, out, RowPlace::ranked(file_, 1, rank++)), t.duration_ns,
                         t.count);
  }
  if (filtering_)
    std::sort(launch_order_.begin(), launch_order_.end(),
              [&](uint32_t a, uint32_t b) { return launch_first_[a] < launch_first_[b]; });
  if (info_.gpu.records == 0)
    for (uint32_t l : launch_order_)
      out.add_gpu_activity(final_key(l, out, RowPlace::ranked(file_, 2, rank++)), 0,
                           launch_counts_[l]);
  for (size_t next_memory = 0; const MemoryDelta& d : deltas) {
    auto it = memory_calls_.find(d.call);
    if (it == memory_calls_.end() || !memory_row(it->second)) continue;
    const uint32_t l = memory_labels[next_memory++];
    add_memory_event(out.row(final_key(l, out, RowPlace::ranked(file_, 3, rank++))),
                     d.space == MemorySpace::kDevice, d.bytes);
  }

  info_.gpu.unpaired = unpaired - info_.gpu.outside_window;
  if (throughput != nullptr)
    *throughput = throughput_.finish(file, info_.header ? info_.header->pid() : 0, info_.first_ns,
                                     info_.last_ns);
  return true;
}

}  // namespace gprof::analysis::ops_stream
