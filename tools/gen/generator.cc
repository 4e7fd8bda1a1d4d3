#include "tools/gen/generator.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace gprof::gen {

uint64_t Unit::records() const {
  switch (kind) {
    case kOp: {
      // Ranges: push and pop of the op, its child and aten::empty; a launch
      // and its kernel per kernel.
      const uint64_t pushes = 1 + (child ? 1 : 0) + (empty ? 1 : 0);
      return 2 * pushes + 2 * op->kernel_count;
    }
    case kGraph:
      return 2 + 1 + kGraphNodes;  // CUDAGraph::replay range, the launch, its kernels
    case kStepBegin:
      return 1 + 6 + 4;  // step push; aten::to > aten::copy_ + copy; aten::zero_ + set
    case kStepEnd:
      // optimizer (2 ranges, a launch), all-reduce (1 range, a launch),
      // aten::item > _local_scalar_dense (a copy and a sync), the step's pop
      return 6 + 4 + 8 + 1;
    case kCopy:
      return 4 + 2;  // pin_memory > aten::copy_ and a copy
    case kSync:
      return 2;
    case kAllReduce:
      return 2 + 2;  // its range, the launch and its kernel
  }
  return 0;
}

uint32_t Generator::nvtx(std::string_view text) {
  auto it = nvtx_ids_.find(std::string(text));
  if (it != nvtx_ids_.end()) return it->second;
  const uint32_t id = next_nvtx_++;
  nvtx_ids_.emplace(std::string(text), id);
  encode_string(strings_, id, StringKind::kNvtx, text);
  return id;
}

uint32_t Generator::kernel_id(uint32_t k) {
  if (kernel_ids_[k] == 0) {
    kernel_ids_[k] = next_kernel_++;
    encode_string(strings_, kernel_ids_[k], StringKind::kKernel, kKernels[k].name);
  }
  return kernel_ids_[k];
}

uint32_t Generator::gpu_kernel_id(uint32_t k) {
  if (gpu_kernel_ids_[k] == 0) {
    gpu_kernel_ids_[k] = next_gpu_kernel_++;
    encode_string(strings_, gpu_kernel_ids_[k], StringKind::kKernel, kKernels[k].name);
  }
  return gpu_kernel_ids_[k];
}

void Generator::push(Thread& t, uint32_t name, uint64_t seq, uint64_t op_id) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = RangeOp::kPush;
  e.time_ns = t.now;
  e.name = name;
  e.seq = seq;
  e.op_id = op_id;
  t.ranges.add(e);
  t.now += rng_.between(300, 2500);
  ++counts_.ranges;
  ++pending_;
}

void Generator::pop(Thread& t) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = RangeOp::kPop;
  e.time_ns = t.now;
  t.ranges.add(e);
  t.now += rng_.between(200, 1500);
  ++counts_.ranges;
  ++pending_;
}

void Generator::mark(Thread& t, uint32_t name) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = RangeOp::kMark;
  e.time_ns = t.now;
  e.name = name;
  t.ranges.add(e);
  t.now += 100;
  ++counts_.ranges;
  ++pending_;
}

void Generator::start_end(Thread& t, RangeOp op, uint32_t name, uint64_t range_id) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = op;
  e.time_ns = t.now;
  e.name = name;
  e.range_id = range_id;
  t.ranges.add(e);
  t.now += 200;
  ++counts_.ranges;
  ++pending_;
}

ApiRecord Generator::call(Thread& t, ApiId api, uint64_t duration) {
  ApiRecord r{};
  r.kind = RecordKind::kApi;
  r.api = api;
  r.tid = t.tid;
  r.start_ns = t.now;
  r.end_ns = t.now + duration;
  r.correlation = correlation_;
  latest_call_ = std::max(latest_call_, r.start_ns);
  if (!gaps_.empty() && r.start_ns >= gaps_.front().start_ns) {  // gprof pushes ids
    last_cupti_ = correlation_;
    r.correlation = last_pushed_ = ++next_pushed_;
    // CUPTI makes the mapping with the call's API record: not while another
    // tool holds CUPTI, nor while a capture window has the kinds off.
    if (!in_gap(r.start_ns) && (!windowed() || kinds_on(r.start_ns)))
      t.buffer->externals.add(last_cupti_, last_pushed_);
  }
  correlation_ = correlation_ == UINT32_MAX ? 1 : correlation_ + 1;
  r.stream = t.stream;
  t.now = r.end_ns + rng_.between(100, 800);
  ++counts_.api;
  ++pending_;
  return r;
}

// GPU work on the thread's stream: it starts once issued and the stream is free.
void Generator::gpu(Thread& t, GpuRecord& r, uint64_t issued_at, bool on_comm_stream) {
  uint64_t& free = on_comm_stream ? t.comm_free : t.gpu_free;
  const uint64_t duration = r.end_ns;
  r.start_ns = std::max(issued_at + rng_.between(1500, 6000), free);
  r.end_ns = r.start_ns + duration;
  free = r.end_ns + rng_.between(500, 2000);
  r.device = s_.rank % 8;
  r.stream = on_comm_stream ? t.cupti_stream + 3 : t.cupti_stream;
  if (keep_gpu(t, r, issued_at)) t.buffer->add(r);
  ++counts_.gpu;
  if (t.buffer->count() >= t.buffer_capacity) {
    if (s_.gpu_lag_ns != 0)
      lagging_.emplace_back(t.now + s_.gpu_lag_ns, std::move(t.buffer));
    else
      completed_.push_back(std::move(t.buffer));
    t.buffer = std::make_unique<ActivityBuffer>();
    t.buffer_capacity = rng_.between(2000, 6000);
  }
}

void Generator::launch(Thread& t, uint32_t k, bool on_comm_stream, uint64_t longer_ns) {
  const KernelSpec& spec = kKernels[k];
  ApiRecord a = call(t, rng_.one_in(4) ? ApiId::cudaLaunchKernelInternal : ApiId::cudaLaunchKernel,
                     rng_.around(4500));
  a.kernel = kernel_id(k);
  a.grid = spec.grid;
  a.block = spec.block;
  a.shared_mem = spec.shared_mem;
  t.calls.add(a);
  ++counts_.launches;
  GpuRecord g = kernel_record(k, a, rng_.around(spec.gpu_ns) + longer_ns);
  gpu(t, g, a.start_ns, on_comm_stream);
}

GpuRecord Generator::kernel_record(uint32_t k, const ApiRecord& a, uint64_t duration_ns) {
  const KernelSpec& spec = kKernels[k];
  GpuRecord g{};
  g.kind = GpuKind::kKernel;
  g.end_ns = duration_ns;  // gpu() places it
  g.correlation = cupti_id(a);
  g.kernel = gpu_kernel_id(k);
  g.grid = spec.grid;
  g.block = spec.block;
  g.shared_mem = spec.shared_mem;
  g.registers = spec.registers;
  return g;
}

void Generator::copy(Thread& t, uint8_t cuda_kind, uint64_t bytes) {
  ApiRecord a = call(t, ApiId::cudaMemcpyAsync, rng_.around(6000));
  a.bytes = bytes;
  a.copy_kind = cuda_kind;
  t.calls.add(a);
  GpuRecord g{};
  g.kind = GpuKind::kMemcpy;
  g.bytes = bytes;
  g.end_ns = 2000 + bytes / 20;  // ~20 GB/s
  g.correlation = cupti_id(a);
  switch (cuda_kind) {
    case kCudaHtoD:
      g.copy_kind = kCuptiCopyHtoD;
      g.src_kind = kMemPinned;
      g.dst_kind = kMemDevice;
      break;
    case kCudaDtoH:
      g.copy_kind = kCuptiCopyDtoH;
      g.src_kind = kMemDevice;
      g.dst_kind = kMemPageable;
      break;
    default:
      g.copy_kind = kCuptiCopyDtoD;
      g.src_kind = kMemDevice;
      g.dst_kind = kMemDevice;
      g.end_ns = 1500 + bytes / 400;
      break;
  }
  gpu(t, g, a.start_ns);
}

void Generator::set(Thread& t, uint64_t bytes) {
  ApiRecord a = call(t, ApiId::cudaMemsetAsync, rng_.around(3500));
  a.bytes = bytes;
  a.address = 0x7f3a00000000ull + (rng_.below(1u << 20) << 12);
  t.calls.add(a);
  GpuRecord g{};
  g.kind = GpuKind::kMemset;
  g.bytes = bytes;
  g.dst_kind = kMemDevice;
  g.end_ns = 1000 + bytes / 800;
  g.correlation = cupti_id(a);
  gpu(t, g, a.start_ns);
}

// cudaStreamSynchronize: returns when the stream's work is done.
void Generator::sync(Thread& t) {
  const uint64_t start = t.now;
  const uint64_t wait = std::max<uint64_t>(t.gpu_free, start + 2000) - start + 1000;
  ApiRecord a = call(t, ApiId::cudaStreamSynchronize, wait);
  t.calls.add(a);
  GpuRecord g{};
  g.kind = GpuKind::kSync;
  g.detail = kSyncStreamSynchronize;
  g.correlation = cupti_id(a);
  g.start_ns = start + 500;
  g.end_ns = a.end_ns - 300;
  g.device = s_.rank % 8;
  g.stream = t.cupti_stream;
  if (keep_gpu(t, g, a.start_ns)) t.buffer->add(g);  // not on the stream's queue: it spans the wait
  ++counts_.gpu;
}

// cudaGraphLaunch of one of the captured graphs: its kernels share the
// launch's correlation id, each with the graph's id and its node's.
void Generator::graph(Thread& t) {
  const uint32_t which = static_cast<uint32_t>(rng_.below(kGraphs));
  ApiRecord a = call(t, ApiId::cudaGraphLaunch, rng_.around(9000));
  a.address = 0x55d0c0de0000ull + which * 0x1000;
  t.calls.add(a);
  ++counts_.graph_launches;
  uint64_t issued = a.start_ns;
  for (uint32_t node = 0; node < kGraphNodes; ++node) {
    const uint32_t k = (which * 3 + node) % (kAllReduce);
    GpuRecord g = kernel_record(k, a, rng_.around(kKernels[k].gpu_ns / 4 + 1000));
    g.graph = which + 1;
    g.graph_node = (static_cast<uint64_t>(which + 1) << 32) | (node + 1);
    gpu(t, g, issued);
    issued = g.start_ns;
  }
}

Unit Generator::next_unit(Thread& t) {
  Unit u;
  switch (t.role) {
    case Role::kMain: {
      const uint32_t at = t.units % (s_.ops_per_step + 2);
      if (at == 0) {
        u.kind = Unit::kStepBegin;
        return u;
      }
      if (at == s_.ops_per_step + 1) {
        u.kind = Unit::kStepEnd;
        return u;
      }
      if (s_.overlapped_comm && at == s_.ops_per_step / 2 + 1) {
        u.kind = Unit::kAllReduce;
        return u;
      }
      if (rng_.one_in(50)) {
        u.kind = Unit::kGraph;
        return u;
      }
      break;
    }
    case Role::kCopy:
      u.kind = rng_.one_in(40) ? Unit::kSync : Unit::kCopy;
      return u;
    case Role::kForward:
    case Role::kBackward:
      if (rng_.one_in(200)) {
        u.kind = Unit::kSync;
        return u;
      }
      break;
  }
  u.kind = Unit::kOp;
  u.op = t.role == Role::kBackward ? &kBackwardOps[rng_.below(kBackwardCount)]
                                   : &kForwardOps[rng_.below(kForwardCount)];
  u.child = u.op->child != nullptr;
  u.empty = u.child && rng_.one_in(3);
  return u;
}

void Generator::work(Thread& t, const Unit& u) {
  switch (u.kind) {
    case Unit::kOp: {
      uint64_t seq = 0;
      if (t.role == Role::kBackward) {
        // A backward op carries the sequence number of its forward op.
        if (seq_ != 0) seq = backward_seq_ < seq_ ? ++backward_seq_ : rng_.between(1, seq_);
      } else {
        seq = ++seq_;
      }
      push(t, nvtx(u.op->name), seq, ++op_id_);
      if (u.child) {
        push(t, nvtx(u.op->child), 0, ++op_id_);
        if (u.empty) {
          push(t, nvtx("aten::empty, sizes = [[], [], [], [], [], []]"), 0, ++op_id_);
          pop(t);
        }
      }
      for (uint32_t i = 0; i < u.op->kernel_count; ++i) launch(t, u.op->kernels[i]);
      if (u.child) pop(t);
      pop(t);
      t.now += rng_.between(2000, 20000);
      break;
    }
    case Unit::kGraph:
      push(t, nvtx("CUDAGraph::replay"), 0, ++op_id_);
      graph(t);
      pop(t);
      break;
    case Unit::kStepBegin:
      if (windowed()) step_window(t.now, true);
      if (!s_.takeover_steps.empty()) step_takeover(true);
      in_step_ = true;
      push(t, nvtx("ProfilerStep#" + std::to_string(step_)));
      if (s_.start_end) start_end(t, RangeOp::kStart, nvtx("train_step"), step_ + 1);
      if (slow()) {
        push(t, nvtx("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
        t.now += s_.slow_ns;
        pop(t);
      }
      push(t, nvtx("aten::to, sizes = [[32, 512], [], [], [], []]"), ++seq_, ++op_id_);
      push(t, nvtx("aten::copy_, sizes = [[32, 512], [32, 512], []]"), 0, ++op_id_);
      copy(t, kCudaHtoD, 32 * 512 * 8);
      pop(t);
      pop(t);
      push(t, nvtx("aten::zero_, sizes = [[4096, 1024]]"), 0, ++op_id_);
      set(t, 4096 * 1024 * 4);
      pop(t);
      break;
    case Unit::kStepEnd:
      push(t, nvtx("Optimizer.step#AdamW.step"), 0, ++op_id_);
      push(t, nvtx("aten::_fused_adamw_"), 0, ++op_id_);
      // The optimizer waits for the gradients' all-reduce (a stream wait
      // the generator does not write as a call).
      if (reduced_in_step_) t.gpu_free = std::max(t.gpu_free, t.comm_free);
      launch(t, kAdam);
      pop(t);
      pop(t);
      if (!reduced_in_step_) {
        push(t, nvtx("nccl:all_reduce"));
        launch(t, kAllReduce, false, all_reduce_wait());
        pop(t);
      }
      reduced_in_step_ = false;
      push(t, nvtx("aten::item, sizes = [[]]"), ++seq_, ++op_id_);
      push(t, nvtx("aten::_local_scalar_dense, sizes = [[]]"), 0, ++op_id_);
      copy(t, kCudaDtoH, 4);
      sync(t);
      pop(t);
      pop(t);
      if (s_.start_end) start_end(t, RangeOp::kEnd, 0, step_ + 1);
      pop(t);  // ProfilerStep#N
      in_step_ = false;
      ++step_;
      ++counts_.steps;
      if (windowed()) step_window(t.now, false);
      if (!s_.takeover_steps.empty()) step_takeover(false);
      break;
    case Unit::kCopy:
      push(t, nvtx("aten::_to_copy, sizes = [[32, 512], [], [], [], [], [], []]"), 0, ++op_id_);
      push(t, nvtx("aten::copy_, sizes = [[32, 512], [32, 512], []]"), 0, ++op_id_);
      copy(t, rng_.one_in(4) ? kCudaDtoD : kCudaHtoD, 32 * 512 * 8 * rng_.between(1, 4));
      pop(t);
      pop(t);
      t.now += rng_.between(20000, 200000);
      break;
    case Unit::kSync:
      sync(t);
      break;
    case Unit::kAllReduce:
      push(t, nvtx("nccl:all_reduce"));
      launch(t, kAllReduce, true, all_reduce_wait());
      pop(t);
      reduced_in_step_ = true;
      break;
  }
}

uint64_t Generator::records_of(const Unit& u) const {
  uint64_t records = u.records();
  if (u.kind == Unit::kStepBegin && slow()) records += 2;  // the DataLoader range
  if ((u.kind == Unit::kStepBegin || u.kind == Unit::kStepEnd) && s_.start_end)
    records += 1;                                                  // train_step's start or end
  if (u.kind == Unit::kStepEnd && reduced_in_step_) records -= 4;  // no all-reduce there
  return records;
}

}  // namespace gprof::gen
