// The writer's drain: each thread's queue decoded into the frame being
// built, names interned, GPU records and external correlations added.
#include "collector/output/writer.h"

#include <cstring>

#include "collector/interning/readonly_text.h"
#include "collector/interning/torch_message.h"
#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"
#include "formats/api_ids.h"
#include "formats/framing.h"

namespace gprof {

namespace {

// Encoded records per frame before a pass stops taking more queues (one
// queue's share, 65,536 records, and the GPU records come on top).
constexpr size_t kFrameBudgetBytes = 16u << 20;
// Distinct texts the writer interns for a full string table; beyond, each
// event's text gets an entry of its own.
constexpr size_t kMaxInlineNames = 1u << 20;

}  // namespace

// What the takeover watchdog needs to know of the calls (takeover_watchdog.h).
void Writer::note_call(const ApiRecord& r) {
  if (r.result != 0) return;
  const ApiInfo* info = api_info(r.api);
  if (info == nullptr) return;
  switch (info->category) {
    case ApiCategory::kLaunch:
    case ApiCategory::kCopy:
    case ApiCategory::kSet:
      if (drained_.launches++ == 0 || r.start_ns < drained_.first_launch_ns)
        drained_.first_launch_ns = r.start_ns;
      break;
    case ApiCategory::kSync:
      if (r.api == ApiId::cudaStreamWaitEvent || r.api == ApiId::cudaStreamWaitEvent_ptsz)
        break;  // the device waits, not the host
      if (r.end_ns > drained_.wait_end_ns) drained_.wait_end_ns = r.end_ns;
      if ((r.api == ApiId::cudaDeviceSynchronize || r.api == ApiId::cuCtxSynchronize) &&
          r.end_ns > drained_.device_wait_end_ns)
        drained_.device_wait_end_ns = r.end_ns;
      break;
    default:
      break;
  }
}

uint64_t Writer::to_ns(ThreadQueue& queue, uint64_t ticks) {
  // Keeps each thread's times in order where a new calibration segment
  // starts a few ns below the previous one's extension.
  uint64_t ns = ticks_.to_ns(ticks);
  if (ns < queue.last_ns) ns = queue.last_ns;
  queue.last_ns = ns;
  return ns;
}

uint32_t Writer::decode(ThreadQueue& q, const char* at) {
  switch (static_cast<QueueType>(static_cast<uint8_t>(*at))) {
    case QueueType::kCall: {
      QCall c;
      std::memcpy(&c, at, sizeof c);
      ApiRecord r{};
      r.kind = RecordKind::kApi;
      r.api = static_cast<ApiId>(c.api);
      r.copy_kind = c.copy_kind & kLowBits;
      r.runtime = runtime_of(c.copy_kind);
      r.result = c.result;
      r.start_ns = to_ns(q, c.start);
      r.end_ns = c.end >= c.start ? r.start_ns + (ticks_.to_ns(c.end) - ticks_.to_ns(c.start))
                                  : r.start_ns;
      r.stream = c.stream;
      r.bytes = c.bytes;
      r.address = c.address;
      r.correlation = c.correlation;
      note_call(r);
      calls_.add(r);
      return sizeof c;
    }
    case QueueType::kLaunch: {
      QLaunch l;
      std::memcpy(&l, at, sizeof l);
      ApiRecord r{};
      r.kind = RecordKind::kApi;
      r.api = static_cast<ApiId>(l.api);
      r.result = l.result;
      r.start_ns = to_ns(q, l.start);
      r.end_ns = l.end >= l.start ? r.start_ns + (ticks_.to_ns(l.end) - ticks_.to_ns(l.start))
                                  : r.start_ns;
      r.stream = l.stream;
      r.correlation = l.correlation;
      r.runtime = runtime_of(l.by_handle);
      r.kernel = l.kernel ? l.kernel : kernels_.id_for_handle(l.function);
      r.grid = l.grid;
      r.block = l.block;
      r.shared_mem = l.shared_mem;
      note_call(r);
      calls_.add(r);
      return sizeof l;
    }
    case QueueType::kPush: {
      QPush p;
      std::memcpy(&p, at, sizeof p);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = RangeOp::kPush;
      e.time_ns = to_ns(q, p.time);
      if (p.name == kInlineName) {
        e.name = q.inline_name;
        e.seq = q.inline_seq;
        e.op_id = q.inline_op_id;
      } else {
        e.name = p.name;
      }
      ranges_.add(e);
      return sizeof p;
    }
    case QueueType::kPop: {
      QPop p;
      std::memcpy(&p, at, sizeof p);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = RangeOp::kPop;
      e.time_ns = to_ns(q, p.time);
      e.domain = p.domain;
      ranges_.add(e);
      return sizeof p;
    }
    case QueueType::kRange: {
      QRange g;
      std::memcpy(&g, at, sizeof g);
      RangeEvent e{};
      e.kind = RecordKind::kRange;
      e.op = g.op;
      e.time_ns = to_ns(q, g.time);
      e.name = g.name;
      if (g.name == kInlineName) {  // emit_nvtx's numbers come with the text
        e.name = q.inline_name;
        e.seq = q.inline_seq;
        e.op_id = q.inline_op_id;
      }
      e.range_id = g.range_id;
      e.payload = g.payload;
      e.domain = g.domain;
      e.category = g.category;
      e.color = g.color;
      ranges_.add(e);
      return sizeof g;
    }
    case QueueType::kText: {
      QText t;
      std::memcpy(&t, at, sizeof t);
      name_text(q, at + sizeof t, t);
      return sizeof t + padded8(t.size);
    }
    case QueueType::kPendingLaunch:
    case QueueType::kPendingCall:
      break;  // drain_queue's to handle
  }
  return 0;
}

// A name the recording thread sent as text (QText). emit_nvtx's unique
// messages are split here, their stable part interned and the numbers kept
// for the event after it. Any other message is interned as it is, and its
// address remembered so that the thread finds it there next time without
// sending it again (StringTable::cached: a literal by its address alone once
// its object is known read-only, other text compared with the stored copy).
void Writer::name_text(ThreadQueue& q, const char* text, const QText& t) {
  q.inline_seq = 0;
  q.inline_op_id = 0;
  const auto cls = static_cast<StringClass>(t.string_class);
  TorchMessage m;
  if (cls == StringClass::kNvtx && split_torch_message(text, t.size, split_, m)) {
    q.inline_seq = m.seq;
    q.inline_op_id = m.op_id;
    q.inline_name = intern_text(split_, static_cast<uint32_t>(m.size), cls, 0);
    return;
  }
  q.inline_name = intern_text(text, t.size, cls, t.address);
}

uint32_t Writer::intern_text(const char* text, uint32_t size, StringClass cls, uint64_t address) {
  const uint32_t id = strings_table_.intern(text, size, cls);
  if (id == kInlineName) return intern_inline(text, size, static_cast<uint8_t>(cls));
  // A literal is trusted by its address alone once remembered: only while it
  // still holds this text (its object may have been unloaded since).
  const char* at = reinterpret_cast<const char*>(address);
  if (at && size < kMaxInlineText &&
      (!in_readonly_segment(at, size + 1) || (std::memcmp(at, text, size) == 0 && at[size] == 0)))
    strings_table_.remember(at, size, id);
  return id;
}

uint32_t Writer::intern_inline(const char* text, uint32_t size, uint8_t string_class) {
  const std::string_view key(text, size);
  if (auto it = inline_names_.find(key); it != inline_names_.end()) return it->second;
  const uint32_t id = next_inline_name_++;
  try {
    if (inline_names_.size() < kMaxInlineNames) inline_names_.emplace(std::string(key), id);
  } catch (const std::bad_alloc&) {
    // Not remembered: the next event with this text gets another entry.
  }
  encode_string(inline_strings_, id, static_cast<StringKind>(string_class), key);
  return id;
}

uint64_t Writer::drain_queue(ThreadQueue& q, uint64_t max, uint64_t& ranges) {
  const int state = q.state.load(std::memory_order_acquire);
  if (state == static_cast<int>(QueueState::kFree)) return 0;
  if (q.read_chunk == nullptr) {
    q.read_chunk = q.first.exchange(nullptr, std::memory_order_acq_rel);
    if (q.read_chunk == nullptr) return 0;  // claimed, its first chunk not yet published
    q.read_offset = 0;
    q.inline_name = 0;
    q.inline_seq = 0;
    q.inline_op_id = 0;
    q.last_ns = 0;
  }
  const uint32_t tid = q.tid.load(std::memory_order_relaxed);
  calls_.begin(tid);
  ranges_.begin(tid);
  uint64_t n = 0;
  bool drained = false;
  bool pending = false;
  for (;;) {
    Chunk* chunk = q.read_chunk;
    const char* data = chunk->data();
    auto published = [&] {
      return static_cast<uint32_t>(chunk->committed.load(std::memory_order_acquire) - data);
    };
    uint32_t committed = published();
    Chunk* next = chunk->next.load(std::memory_order_acquire);
    if (next) committed = published();  // the last commit
    while (q.read_offset < committed && n < max) {
      const uint8_t type =
          __atomic_load_n(reinterpret_cast<const uint8_t*>(data + q.read_offset), __ATOMIC_ACQUIRE);
      if (type == static_cast<uint8_t>(QueueType::kPendingLaunch) ||
          type == static_cast<uint8_t>(QueueType::kPendingCall)) {
        // Its thread is still inside the call. It finishes the record in
        // place; one that never will (its thread gone, or the last drain) is
        // lost, and counted.
        if (state != static_cast<int>(QueueState::kOrphaned) &&
            !stop_requested_.load(std::memory_order_acquire)) {
          pending = true;
          break;
        }
        losses().add(LossReason::kInFlightAtExit);
        q.read_offset += type == static_cast<uint8_t>(QueueType::kPendingLaunch) ? sizeof(QLaunch)
                                                                                 : sizeof(QCall);
        continue;
      }
      const uint32_t size = decode(q, data + q.read_offset);
      if (size == 0) {
        // Not a record gprof wrote: the rest of this chunk cannot be trusted.
        losses().add(LossReason::kEncodeError);
        q.read_offset = committed;
        break;
      }
      // A name stored with the event is part of the record after it.
      if (static_cast<QueueType>(data[q.read_offset]) != QueueType::kText) ++n;
      q.read_offset += size;
    }
    if (q.read_offset < committed) break;  // this pass's share is done
    if (!next) {
      drained = true;
      break;
    }
    q.read_chunk = next;
    q.read_offset = 0;
    chunks_.give_back(chunk);
    top_up();
  }
  ranges += ranges_.count();
  if (calls_.count() > 0) calls_.finish(batches_);
  if (ranges_.count() > 0) ranges_.finish(batches_);
  if (!drained) {
    // Waiting for a call to return is no backlog: the next pass comes on time.
    if (!pending) backlog_ = true;
  } else if (state == static_cast<int>(QueueState::kOrphaned)) {
    // Its thread has exited and every record it made has been read.
    chunks_.give_back(q.read_chunk);
    q.read_chunk = nullptr;
    q.state.store(static_cast<int>(QueueState::kFree), std::memory_order_release);
  }
  return n;
}

void Writer::emit_names() {
  // Kernel and NVTX names are read after the records: a record is written
  // only after its name's entry is filled, so every id drained is covered.
  // Entries being filled by another thread are left for a later pass.
  const uint32_t kernels_end = kernels_.reserved();
  if (kernel_emitted_.size() < kernels_end) kernel_emitted_.resize(kernels_end, false);
  for (uint32_t id = names_emitted_; id < kernels_end; ++id) {
    if (kernel_emitted_[id]) continue;
    if (!kernels_.ready(id)) continue;
    if (const char* name = kernels_.name(id))
      encode_string(strings_, id, StringKind::kKernel, name);
    kernel_emitted_[id] = true;
  }
  while (names_emitted_ < kernels_end && kernel_emitted_[names_emitted_]) ++names_emitted_;

  const uint32_t strings_end = strings_table_.reserved();
  if (string_emitted_.size() < strings_end) string_emitted_.resize(strings_end, false);
  for (uint32_t i = strings_emitted_; i < strings_end; ++i) {
    if (string_emitted_[i]) continue;
    const uint32_t id = StringTable::kFirstId + i;
    const char* text = strings_table_.text(id);
    if (!text) continue;
    const auto kind = static_cast<StringKind>(strings_table_.string_class(id));
    encode_string(strings_, id, kind, text);
    string_emitted_[i] = true;
  }
  while (strings_emitted_ < strings_end && string_emitted_[strings_emitted_]) ++strings_emitted_;
}

uint64_t Writer::drain_once(uint64_t max_per_queue) {
  batches_.clear();
  inline_strings_.clear();
  backlog_ = false;
  uint64_t total = 0;
  uint64_t ranges = 0;
  ProcessState& p = process_state();
  calibrate(false);
  stock_chunks();
  // Until the TSC rate is known, records wait in their queues. A frame stays
  // far below the reader's kMaxFramePayload: past kFrameBudgetBytes the other
  // queues wait for the next pass, which starts one queue further on so that
  // busy threads early in the list cannot starve the others.
  if (ticks_.ready()) {
    uint32_t index = 0;
    const uint32_t first = pass_++;
    uint32_t queues = 0;
    queues_.for_each([&](ThreadQueue&) { ++queues; });
    const uint32_t start = queues ? first % queues : 0;
    for (int round = 0; round < 2; ++round) {
      index = 0;
      queues_.for_each([&](ThreadQueue& q) {
        const uint32_t i = index++;
        if ((round == 0) != (i >= start)) return;
        if (batches_.size() >= kFrameBudgetBytes) {
          backlog_ = true;
          return;
        }
        total += drain_queue(q, max_per_queue, ranges);
        top_up();
      });
    }
  } else {
    backlog_ = true;
  }
  capture_tick(clock_ns());
  gpu_strings_.clear();
  uint64_t gpu = 0;
  if (GpuSource* source = gpu_source()) {
    source->calls_drained(drained_);
    drained_ = {};
    source->poll(clock_ns(), *this);
    gpu = source->drain(*this);
  }
  if (gpu_.count() > 0) gpu_.finish(batches_);
  if (external_.count() > 0) external_.finish(batches_);
  const uint32_t transitions = capture_transitions(
      transitions_seen_,
      [](void* status, uint64_t ns, bool open) {
        static_cast<CuptiStatus*>(status)->window_changed(ns, open);
      },
      &p.cupti);
  if (transitions != transitions_seen_) {
    transitions_seen_ = transitions;
    p.cupti.publish();
  }
  status_.clear();
  p.cupti.encode_if_changed(status_, cupti_status_seen_);
  strings_.clear();
  emit_names();
  if (total == 0 && gpu == 0 && strings_.empty() && status_.empty() && inline_strings_.empty())
    return 0;
  frame_.clear();
  frame_.append(status_.data(), status_.size());
  frame_.append(strings_.data(), strings_.size());
  frame_.append(gpu_strings_.data(), gpu_strings_.size());
  frame_.append(inline_strings_.data(), inline_strings_.size());
  frame_.append(batches_.data(), batches_.size());
  if (frame_.failed() || strings_.failed() || batches_.failed() || gpu_strings_.failed() ||
      status_.failed() || inline_strings_.failed()) {
    losses().add(LossReason::kEncodeError, total + gpu);
    for (ByteBuffer* b : {&frame_, &strings_, &batches_, &gpu_strings_, &status_, &inline_strings_})
      b->clear_failure();
    return total + gpu;
  }
  if (write_failed_) {
    losses().add(LossReason::kWriteError, total + gpu);
    return total + gpu;
  }
  if (frame_.size() > kMaxFramePayload) {
    // The reader would take the length for garbage and lose the rest of the
    // file; this frame is counted lost instead.
    losses().add(LossReason::kEncodeError, total + gpu);
    return total + gpu;
  }
  write_frame(frame_);
  if (write_failed_) {
    losses().add(LossReason::kWriteError, total + gpu);
  } else {
    api_records_ += total - ranges;
    range_events_ += ranges;
    gpu_records_ += gpu;
  }
  return total + gpu;
}

void Writer::gpu(GpuRecord& record, const char* kernel_name) {
  if (kernel_name != nullptr) record.kernel = intern_gpu_name(kernel_name);
  gpu_.add(record);
}

void Writer::external_correlation(uint64_t correlation, uint64_t external_id) {
  external_.add(correlation, external_id);
}

uint32_t Writer::intern_gpu_name(const char* name) {
  const std::string_view key(name);
  if (auto it = gpu_names_.find(key); it != gpu_names_.end()) return it->second;
  try {
    const uint32_t id = next_gpu_name_++;
    gpu_names_.emplace(std::string(key), id);
    encode_string(gpu_strings_, id, StringKind::kKernel, key);
    return id;
  } catch (const std::bad_alloc&) {
    gpu_strings_.mark_failed();
    return 0;
  }
}

}  // namespace gprof
