#include "tools/gen/workload.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/correlation_ids.h"
#include "formats/record.h"
#include "formats/write/frame_encoder.h"

namespace gprof::gen {
namespace {

// xoshiro256** seeded through splitmix64: the same seed makes the same file
// on every machine (no std:: distribution, whose output is not specified).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // In [0, n).
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  // In [lo, hi].
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  // True once in `n` draws on average.
  bool one_in(uint64_t n) { return below(n) == 0; }
  // `base` varied by up to +-1/8.
  uint64_t around(uint64_t base) { return base - base / 8 + below(base / 4 + 1); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// CUPTI's enums (cupti_activity.h) and cudaMemcpyKind (driver_types.h).
constexpr uint8_t kCuptiCopyHtoD = 1, kCuptiCopyDtoH = 2, kCuptiCopyDtoD = 8;
constexpr uint8_t kMemPageable = 1, kMemPinned = 2, kMemDevice = 3;
constexpr uint8_t kCudaHtoD = 1, kCudaDtoH = 2, kCudaDtoD = 3;
constexpr uint32_t kSyncStreamSynchronize = 3;

struct KernelSpec {
  const char* name;  // as CUPTI reports it: mangled, or a C name
  Dim3 grid, block;
  uint32_t shared_mem, registers;
  uint64_t gpu_ns;  // typical duration
};

// Names of the kind a transformer's step runs (cuBLAS and PyTorch's own).
const KernelSpec kKernels[] = {
    {"ampere_sgemm_128x64_tn", {128, 8, 1}, {128, 1, 1}, 32768, 122, 180000},
    {"ampere_sgemm_64x64_nn", {64, 16, 1}, {64, 1, 1}, 16384, 96, 95000},
    {"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
     "kernel",
     {96, 4, 1},
     {128, 1, 1},
     65536,
     168,
     140000},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_"
     "T1_",
     {1024, 1, 1},
     {128, 1, 1},
     0,
     16,
     6000},
    {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_"
     "13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_"
     "EUliE_EEviT1_",
     {2048, 1, 1},
     {128, 1, 1},
     0,
     24,
     14000},
    {"_ZN2at6native12_GLOBAL__N_124vectorized_layer_norm_kernelIffEEviT0_PKT_S6_S6_PS3_S7_PS4_",
     {4096, 1, 1},
     {256, 1, 1},
     2048,
     40,
     22000},
    {"_ZN2at6native43_GLOBAL__N__d2b0c19b_13_SoftMax_cu_9f978f6328cunn_SoftMaxForwardILi4EfffNS1_"
     "22SoftMaxForwardEpilogueEEEvPT2_PKT0_i",
     {4096, 1, 1},
     {512, 1, 1},
     4096,
     38,
     31000},
    {"_ZN2at6native12_GLOBAL__N_120fused_dropout_kernelIffjLi1ELi1EbEEvNS_"
     "4cuda6detail10TensorInfoIKT_"
     "T1_EENS5_IS6_S8_EENS5_IT4_S8_EES8_T0_NS_15PhiloxCudaStateE",
     {1024, 1, 1},
     {256, 1, 1},
     0,
     32,
     17000},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffNS0_15binary_"
     "internal10AddFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_",
     {2048, 1, 1},
     {128, 1, 1},
     0,
     20,
     9000},
    {"_ZN2at6native12_GLOBAL__N_129layer_norm_grad_input_kernelIffEEvPKT_S5_PKT0_S8_S5_PS3_i",
     {4096, 1, 1},
     {256, 1, 1},
     4096,
     56,
     36000},
    {"_ZN2at6native12_GLOBAL__N_124cunn_SoftMaxBackwardILi4EfffNS1_"
     "23SoftMaxBackwardEpilogueEEEvPT0_"
     "PKT2_SA_l",
     {4096, 1, 1},
     {512, 1, 1},
     4096,
     42,
     33000},
    {"_ZN2at6native55_GLOBAL__N__multi_tensor_apply_kernelINS1_18TensorListMetadataILi4EEENS1_"
     "17FusedAdamMathFunctorIfLi4ELNS1_8ADAM_MODEE1ELb0EEEJPfdddddbbS7_S7_EEEvT_T0_DpT1_",
     {320, 1, 1},
     {512, 1, 1},
     0,
     64,
     260000},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", {24, 1, 1}, {640, 1, 1}, 0, 96, 420000},
};
constexpr uint32_t kKernelCount = sizeof kKernels / sizeof kKernels[0];
// Indexes into kKernels.
enum : uint32_t {
  kSgemmTn,
  kSgemmNn,
  kXmma,
  kFill,
  kMul,
  kLayerNorm,
  kSoftmax,
  kDropout,
  kAdd,
  kLayerNormGrad,
  kSoftmaxGrad,
  kAdam,
  kAllReduce
};

// An op as PyTorch's emit_nvtx names it; the shim interns the text without
// ", seq = N, op_id = M" and keeps the numbers (collector/interning/torch_message.h).
struct OpSpec {
  const char* name;   // "aten::linear, sizes = [[32, 1024], [4096, 1024], [4096]]"
  const char* child;  // the op it calls, named without seq, or nullptr
  uint32_t kernels[2];
  uint32_t kernel_count;
};

const OpSpec kForwardOps[] = {
    {"aten::linear, sizes = [[32, 512, 1024], [4096, 1024], [4096]]",
     "aten::addmm, sizes = [[4096], [16384, 1024], [1024, 4096], [], []]",
     {kSgemmTn},
     1},
    {"aten::layer_norm, sizes = [[32, 512, 1024], [], [1024], [1024], [], []]",
     "aten::native_layer_norm, sizes = [[32, 512, 1024], [], [1024], [1024], []]",
     {kLayerNorm},
     1},
    {"aten::relu, sizes = [[32, 512, 4096]]", nullptr, {kAdd}, 1},
    {"aten::dropout, sizes = [[32, 512, 1024], [], []]",
     "aten::native_dropout, sizes = [[32, 512, 1024], [], []]",
     {kDropout},
     1},
    {"aten::add, sizes = [[32, 512, 1024], [32, 512, 1024], []]", nullptr, {kAdd}, 1},
    {"aten::softmax, sizes = [[32, 16, 512, 512], [], []]",
     "aten::_softmax, sizes = [[32, 16, 512, 512], [], []]",
     {kSoftmax},
     1},
    {"aten::matmul, sizes = [[32, 16, 512, 64], [32, 16, 64, 512]]",
     "aten::bmm, sizes = [[512, 512, 64], [512, 64, 512]]",
     {kXmma},
     1},
    {"aten::mul, sizes = [[32, 16, 512, 512], []]", nullptr, {kMul}, 1},
};
const OpSpec kBackwardOps[] = {
    {"AddmmBackward0", "aten::mm, sizes = [[16384, 4096], [4096, 1024]]", {kSgemmNn, kSgemmTn}, 2},
    {"NativeLayerNormBackward0", "aten::native_layer_norm_backward", {kLayerNormGrad, kFill}, 2},
    {"ReluBackward0", "aten::threshold_backward", {kMul}, 1},
    {"NativeDropoutBackward0", "aten::native_dropout_backward", {kMul}, 1},
    {"SoftmaxBackward0", "aten::_softmax_backward_data", {kSoftmaxGrad}, 1},
    {"BmmBackward0", "aten::bmm", {kXmma, kXmma}, 2},
};
constexpr uint32_t kForwardCount = sizeof kForwardOps / sizeof kForwardOps[0];
constexpr uint32_t kBackwardCount = sizeof kBackwardOps / sizeof kBackwardOps[0];

constexpr uint32_t kGraphs = 2, kGraphNodes = 8;
constexpr uint32_t kAllocations = 4;       // cudaMalloc at start, cudaFree at the end; + one pinned
constexpr uint64_t kFrameRecords = 40000;  // pending records that make a frame
// Wall time = recording clock + this: the run starts on 2026-01-01.
constexpr int64_t kWallOffsetNs = 1'767'225'600'000'000'000ll - 5'000'000'000'000ll;

enum class Role { kMain, kForward, kBackward, kCopy };

// A thread's encoder of calls or ranges that, with a capture window, writes
// only what is made while one is open (`open`), counting the rest in
// `skipped`. Without (open == nullptr): the encoder itself.
template <typename Encoder, typename Record>
struct Gated {
  Encoder encoder;
  const bool* open = nullptr;
  uint64_t* skipped = nullptr;
  void begin(uint32_t tid) { encoder.begin(tid); }
  void add(const Record& record) {
    if (open != nullptr && !*open) {
      ++*skipped;
      return;
    }
    encoder.add(record);
  }
  size_t count() const { return encoder.count(); }
  void finish(ByteBuffer& frame) { encoder.finish(frame); }
};
// How long CUPTI's kinds stay on after a window closes (Settings::capture_steps).
constexpr uint64_t kKindsOffNs = 50'000;

// A CUPTI activity buffer: GPU records, and the external correlations of
// the calls made while gprof pushed ids (Settings::takeover_steps).
struct ActivityBuffer : GpuActivitiesEncoder {
  ExternalCorrelationsEncoder externals;
};

struct Thread {
  uint32_t tid = 0;
  Role role = Role::kMain;
  uint64_t now = 0;        // CPU time of the thread
  uint64_t gpu_free = 0;   // when its stream's last work ends
  uint64_t comm_free = 0;  // the same of its communication stream (Settings::overlapped_comm)
  uint64_t stream = 0;     // cudaStream_t
  uint32_t cupti_stream = 0;
  uint32_t units = 0;
  Gated<ApiCallsEncoder, ApiRecord> calls;
  Gated<RangesEncoder, RangeEvent> ranges;
  std::deque<GpuRecord> unrecorded;  // while no window is open: its queued work
  std::unique_ptr<ActivityBuffer> buffer = std::make_unique<ActivityBuffer>();
  size_t buffer_capacity = 0;
};

// A piece of work a thread does next, with the records it will write.
struct Unit {
  enum Kind { kOp, kGraph, kStepBegin, kStepEnd, kCopy, kSync, kAllReduce } kind = kOp;
  const OpSpec* op = nullptr;  // kOp
  bool child = false;
  bool empty = false;  // an aten::empty inside the child (no GPU work)
  uint64_t records() const;
};

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

class Generator {
 public:
  Generator(const Settings& s, std::FILE* out, Counts& counts)
      : s_(s),
        out_(out),
        counts_(counts),
        rng_(s.seed * 0x100000001B3ull + s.rank),
        correlation_(s.first_correlation == 0 ? 1 : s.first_correlation) {}

  bool run(std::string& error);

 private:
  uint32_t nvtx(std::string_view text);
  uint32_t kernel_id(uint32_t k);  // as the API record names it
  uint32_t gpu_kernel_id(uint32_t k);
  void push(Thread& t, uint32_t name, uint64_t seq = 0, uint64_t op_id = 0);
  void pop(Thread& t);
  void mark(Thread& t, uint32_t name);
  void start_end(Thread& t, RangeOp op, uint32_t name, uint64_t range_id);
  ApiRecord call(Thread& t, ApiId api, uint64_t duration);
  void launch(Thread& t, uint32_t k, bool on_comm_stream = false, uint64_t longer_ns = 0);
  void copy(Thread& t, uint8_t cuda_kind, uint64_t bytes);
  void set(Thread& t, uint64_t bytes);
  void sync(Thread& t);
  void graph(Thread& t);
  void gpu(Thread& t, GpuRecord& r, uint64_t issued_at, bool on_comm_stream = false);
  void work(Thread& t, const Unit& u);
  Unit next_unit(Thread& t);
  uint64_t records_of(const Unit& u) const;
  bool slow() const { return s_.slow_ns != 0 && s_.rank == s_.slow_rank; }
  // How much longer this rank's all-reduce lasts: it waits for the straggler.
  uint64_t all_reduce_wait() const {
    return s_.slow_ns != 0 && s_.slow_rank < s_.ranks && s_.rank != s_.slow_rank ? s_.slow_ns : 0;
  }
  void flush(bool last);
  void write_frame(const ByteBuffer& payload);
  void write_header();
  // Settings::capture_steps.
  bool windowed() const { return !s_.capture_steps.empty(); }
  bool record_gpu(Thread& t, const GpuRecord& r);
  void step_window(uint64_t now, bool begins);

  const Settings& s_;
  std::FILE* out_;
  Counts& counts_;
  Rng rng_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::vector<std::unique_ptr<ActivityBuffer>> completed_;  // full buffers
  // Full buffers held for Settings::gpu_lag_ns: (when they are delivered, buffer).
  std::deque<std::pair<uint64_t, std::unique_ptr<ActivityBuffer>>> lagging_;
  std::unordered_map<std::string, uint32_t> nvtx_ids_;
  uint32_t next_nvtx_ = 1u << 28;  // as collector/interning/string_table.h numbers them
  uint32_t kernel_ids_[kKernelCount] = {};
  uint32_t gpu_kernel_ids_[kKernelCount] = {};
  uint32_t next_kernel_ = 1, next_gpu_kernel_ = 1u << 24;
  ByteBuffer strings_, frame_;
  uint32_t correlation_;  // the next call's
  uint64_t pending_ = 0;
  uint64_t seq_ = 0, backward_seq_ = 0, op_id_ = 0;
  uint64_t step_ = 0;
  bool in_step_ = false;
  bool reduced_in_step_ = false;  // the step's all-reduce ran in its middle (overlapped_comm)
  bool write_failed_ = false;
  // Settings::capture_steps: whether a window is open, when they opened and
  // closed (CuptiStatus.capture_windows), the records not written.
  bool capturing_ = false;
  std::vector<uint64_t> windows_;
  bool windows_changed_ = false;
  uint64_t closed_at_ = 0;
  Counts skipped_;
  CuptiStatusFields status_;
  bool status_changed_ = false;
  // Settings::takeover_steps: whether another tool holds CUPTI, the last
  // call's ids (pushed, CUPTI's), the gaps. A gap is a time: a call belongs
  // to it by its start, whichever thread made it and when.
  bool taken_ = false;
  uint64_t next_pushed_ = kPushedIdBase;
  uint64_t last_pushed_ = 0, last_cupti_ = 0;
  uint64_t latest_call_ = 0;  // the latest start of a call made so far
  std::vector<CuptiGapFields> gaps_;
  uint64_t gpu_written_ = 0;  // GPU records in the file so far
  void step_takeover(bool begins);
  // The correlation id of the GPU records of call `a` (made just before).
  uint64_t cupti_id(const ApiRecord& a) const {
    return last_pushed_ != 0 && a.correlation == last_pushed_ ? last_cupti_ : a.correlation;
  }
  bool in_gap(uint64_t start_ns) const {
    for (auto gap = gaps_.rbegin(); gap != gaps_.rend(); ++gap) {
      if (start_ns >= gap->start_ns) return gap->end_ns == 0 || start_ns < gap->end_ns;
    }
    return false;
  }
  // Whether CUPTI gives gprof this GPU record of a call made at `call_ns`
  // (not another tool, not outside a window).
  bool keep_gpu(Thread& t, const GpuRecord& r, uint64_t call_ns) {
    if (in_gap(call_ns)) {
      ++skipped_.gpu;
      return false;
    }
    if (windowed() && !record_gpu(t, r)) return false;
    ++gpu_written_;
    return true;
  }
};

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
    if (!in_gap(r.start_ns)) t.buffer->externals.add(last_cupti_, last_pushed_);
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
  GpuRecord g{};
  g.kind = GpuKind::kKernel;
  g.end_ns = rng_.around(spec.gpu_ns) + longer_ns;
  g.correlation = cupti_id(a);
  g.kernel = gpu_kernel_id(k);
  g.grid = spec.grid;
  g.block = spec.block;
  g.shared_mem = spec.shared_mem;
  g.registers = spec.registers;
  gpu(t, g, a.start_ns, on_comm_stream);
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
    const KernelSpec& spec = kKernels[k];
    GpuRecord g{};
    g.kind = GpuKind::kKernel;
    g.end_ns = rng_.around(spec.gpu_ns / 4 + 1000);
    g.correlation = cupti_id(a);
    g.kernel = gpu_kernel_id(k);
    g.grid = spec.grid;
    g.block = spec.block;
    g.shared_mem = spec.shared_mem;
    g.registers = spec.registers;
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

void Generator::write_frame(const ByteBuffer& payload) {
  unsigned char header[8];
  encode_frame_header(payload, header);
  if (std::fwrite(header, 1, sizeof header, out_) != sizeof header ||
      std::fwrite(payload.data(), 1, payload.size(), out_) != payload.size())
    write_failed_ = true;
  ++counts_.frames;
  counts_.bytes += sizeof header + payload.size();
}

// Whether CUPTI reports a GPU record while no window may be open: its call
// was recorded, or its work starts before the kinds go off after a close
// (outside the window: the readers leave it out). Else it is kept aside in
// case a window opens before its work starts (then it comes without its call).
bool Generator::record_gpu(Thread& t, const GpuRecord& r) {
  if (capturing_ || (closed_at_ != 0 && r.start_ns < closed_at_ + kKindsOffNs)) return true;
  ++skipped_.gpu;
  uint64_t now = UINT64_MAX;  // no window opens before every thread's clock
  for (auto& other : threads_) now = std::min(now, other->now);
  while (!t.unrecorded.empty() &&
         (t.unrecorded.front().start_ns < now || t.unrecorded.size() > 4096))
    t.unrecorded.pop_front();
  t.unrecorded.push_back(r);
  return false;
}

// The main thread's step `step_` begins (`begins`) or step `step_ - 1` has ended, at `now`.
void Generator::step_window(uint64_t now, bool begins) {
  for (const auto& [start, stop] : s_.capture_steps) {
    if (begins && !capturing_ && step_ == start) {
      capturing_ = true;
      windows_.push_back(now);
      windows_.push_back(0);  // open
      windows_changed_ = true;
      // Work queued before the window that starts in it: reported, without its call.
      for (auto& other : threads_) {
        for (const GpuRecord& r : other->unrecorded) {
          if (r.start_ns < now) continue;
          other->buffer->add(r);
          --skipped_.gpu;
        }
        other->unrecorded.clear();
      }
    } else if (!begins && capturing_ && step_ == stop) {
      capturing_ = false;
      windows_.back() = now;
      closed_at_ = now;
      windows_changed_ = true;
    }
  }
}

// The main thread's step `step_` begins (`begins`) or step `step_ - 1` has
// ended: another tool takes CUPTI, or gives it back (as collector/gpu/
// cupti_session.cc records it), after every call made so far began (the
// main thread's clock is the earliest, but the others made calls up to
// theirs), so that whether a call is in a gap follows its start alone.
void Generator::step_takeover(bool begins) {
  const uint64_t now = std::max(threads_.front()->now, latest_call_ + 1);
  for (const auto& [start, stop] : s_.takeover_steps) {
    if (begins && !taken_ && step_ == start) {
      taken_ = true;
      CuptiGapFields gap;
      gap.start_ns = now;
      gap.reason = "cuptiActivityRegisterCallbacks by another tool (gpuprof-gen --takeover)";
      gap.gpu_records_before = gpu_written_;
      gaps_.push_back(gap);
      status_.state = CuptiState::kExternalCorrelation;
      status_.reason = "CUPTI's subscriber given up to another tool";
      status_changed_ = true;
    } else if (!begins && taken_ && step_ == stop) {
      taken_ = false;
      gaps_.back().end_ns = now;
      gaps_.back().gpu_records_at_end = gpu_written_;
      status_changed_ = true;
    }
  }
}

void Generator::flush(bool last) {
  frame_.clear();
  if (status_changed_) {
    status_.gaps = gaps_.data();
    status_.gap_count = std::min<size_t>(gaps_.size(), 16);
    status_.gaps_not_kept = static_cast<uint32_t>(gaps_.size() - status_.gap_count);
    if (!windows_changed_) encode_cupti_status(frame_, status_);
    status_changed_ = false;
  }
  if (windows_changed_ && windows_.size() / 2 <= 256) {
    // As the shim's writer: the status again, first in the frame, when the windows change.
    status_.windows = windows_.data();
    status_.window_count = windows_.size() / 2;
    encode_cupti_status(frame_, status_);
    windows_changed_ = false;
  }
  frame_.append(strings_.data(), strings_.size());
  strings_.clear();
  for (auto& t : threads_) {
    if (t->calls.count() > 0) t->calls.finish(frame_);
    if (t->ranges.count() > 0) t->ranges.finish(frame_);
  }
  // The lagging buffers whose time has come: the slowest thread's clock is
  // the process's.
  uint64_t now = UINT64_MAX;
  for (auto& t : threads_) now = std::min(now, t->now);
  while (!lagging_.empty() && (last || lagging_.front().first <= now)) {
    completed_.push_back(std::move(lagging_.front().second));
    lagging_.pop_front();
  }
  if (last) {
    for (auto& t : threads_) {
      if (t->buffer->count() == 0) continue;
      completed_.push_back(std::move(t->buffer));
      t->buffer = std::make_unique<ActivityBuffer>();
    }
  }
  // CUPTI hands buffers back as they complete, not in the order of their
  // records: shuffled, and some held back a frame or more.
  for (size_t i = completed_.size(); i > 1; --i)
    std::swap(completed_[i - 1], completed_[rng_.below(i)]);
  std::vector<std::unique_ptr<ActivityBuffer>> later;
  uint64_t in_frame = 0;
  for (auto& buffer : completed_) {
    if (!last && rng_.one_in(3)) {
      later.push_back(std::move(buffer));
      continue;
    }
    // Many lagging buffers come due at once at the end: frames of the
    // shim's size (its writer never makes one of them all), not one frame.
    if (s_.gpu_lag_ns != 0 && in_frame >= kFrameRecords) {
      write_frame(frame_);
      frame_.clear();
      in_frame = 0;
    }
    in_frame += buffer->count();
    buffer->finish(frame_);
    if (buffer->externals.count() > 0) buffer->externals.finish(frame_);
  }
  completed_ = std::move(later);
  if (!frame_.empty()) write_frame(frame_);
  pending_ = 0;
}

void Generator::write_header() {
  ByteBuffer preamble;
  encode_preamble(preamble);
  if (std::fwrite(preamble.data(), 1, preamble.size(), out_) != preamble.size())
    write_failed_ = true;
  counts_.bytes += preamble.size();

  const std::string seed = std::to_string(s_.seed), rank = std::to_string(s_.rank);
  const char* argv[] = {"gpuprof-gen", "--seed", seed.c_str(), "--rank", rank.c_str()};
  const KeyValue config[] = {
      {"output", "gprof-%r.gprof"}, {"max_memory", "268435456"},     {"on_full", "wait"},
      {"max_wait_ms", "10000"},     {"timestamps", "clock_gettime"}, {"file_mode", "0600"},
      {"fork", "follow"},           {"flush_timeout_ms", "2000"},    {"capture", "all"}};
  const std::string host = "gen-node" + std::to_string(s_.rank / 8);
  HeaderFields h;
  h.pid = threads_.front()->tid;
  h.ppid = 4000 + s_.rank / 8;
  h.host = host;
  h.argv = argv;
  h.argc = sizeof argv / sizeof argv[0];
  h.exe = "gpuprof-gen";
  h.start_clock_ns = threads_.front()->now - 1'000'000;
  h.clock_offset_to_wall_ns = kWallOffsetNs;
  h.start_wall_ns = h.start_clock_ns + static_cast<uint64_t>(kWallOffsetNs);
  h.clock_name = "CLOCK_MONOTONIC";
  h.cuda_runtime_version = 13000;
  h.cuda_driver_version = 13000;
  h.rank = rank;
  h.gprof_version = GPROF_VERSION;
  h.config = config;
  h.config_count = sizeof config / sizeof config[0];
  std::vector<KeyValue> windowed_config(std::begin(config), std::end(config));
  if (windowed()) {
    windowed_config.back().value = "cudaProfilerApi";  // capture
    h.config = windowed_config.data();
  }
  frame_.clear();
  encode_header(frame_, h);
  write_frame(frame_);

  // The devices as the driver lists them once CUDA runs (a frame of their
  // own), and how CUPTI was set up.
  const uint32_t devices = std::min<uint32_t>(s_.ranks, 8);
  std::vector<std::string> pci(devices);
  std::vector<DeviceFields> fields(devices);
  for (uint32_t d = 0; d < devices; ++d) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02X:00.0", 0x18 + 0x10 * d);
    pci[d] = bus;
    fields[d].ordinal = d;
    fields[d].name = "NVIDIA H100 80GB HBM3";
    fields[d].compute_major = 9;
    fields[d].compute_minor = 0;
    fields[d].sm_count = 132;
    fields[d].total_memory = 85'045'149'696ull;
    fields[d].pci_bus_id = pci[d];
  }
  frame_.clear();
  encode_devices(frame_, fields.data(), fields.size());
  static const char* kinds[] = {"CONCURRENT_KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION"};
  CuptiStatusFields& status = status_;
  status.state = CuptiState::kSubscribed;
  status.version = 130001;
  status.library = "/usr/local/cuda/lib64/libcupti.so.13";
  status.timestamps_aligned = true;
  status.activity_kinds = kinds;
  status.activity_kind_count = sizeof kinds / sizeof kinds[0];
  status.attach = "injection";
  status.buffer_bytes = 1 << 20;
  status.buffer_count = 16;
  status.windows_recorded = windowed();
  encode_cupti_status(frame_, status);
  write_frame(frame_);
}

bool Generator::run(std::string& error) {
  // Thread 0 trains (forward ops, steps); then the autograd thread, more
  // forward and backward threads, and a pin-memory thread that copies.
  const uint32_t pid = 20000 + 1000 * s_.rank + static_cast<uint32_t>(rng_.below(500));
  const uint64_t origin = 5'000'000'000'000ull + s_.rank * 1'234'567ull;
  for (uint32_t i = 0; i < s_.threads; ++i) {
    auto t = std::make_unique<Thread>();
    t->tid = i == 0 ? pid : pid + 7 + 3 * i;
    t->role = i == 0                                  ? Role::kMain
              : i == 1                                ? Role::kBackward
              : i + 1 == s_.threads && s_.threads > 3 ? Role::kCopy
              : i % 2 == 0                            ? Role::kForward
                                                      : Role::kBackward;
    t->now = origin + (i == 0 ? 0 : 2'000'000 + rng_.below(1'000'000));
    t->stream = 0x55d0a0000000ull + 0x1000 * i;
    t->cupti_stream = 7 + 6 * i;
    t->buffer_capacity = rng_.between(2000, 6000);
    t->calls.begin(t->tid);
    t->ranges.begin(t->tid);
    if (windowed()) {
      t->calls.open = t->ranges.open = &capturing_;
      t->calls.skipped = &skipped_.api;
      t->ranges.skipped = &skipped_.ranges;
    }
    threads_.push_back(std::move(t));
  }
  write_header();

  for (auto& t : threads_) {
    const char* name = t->role == Role::kMain       ? "pt_main_thread"
                       : t->role == Role::kCopy     ? "pin_memory"
                       : t->role == Role::kBackward ? "pt_autograd_0"
                                                    : "pt_worker";
    RangeEvent e{};
    e.kind = RecordKind::kRange;
    e.op = RangeOp::kNameThread;
    e.time_ns = t->now;
    e.range_id = t->tid;
    e.name = nvtx(name);
    t->ranges.add(e);
    t->now += 1000;
    ++counts_.ranges;
  }
  Thread& main = *threads_.front();
  uint64_t addresses[kAllocations];
  for (uint32_t i = 0; i < kAllocations; ++i) {
    ApiRecord a = call(main, ApiId::cudaMalloc, rng_.around(120000));
    a.bytes = (64ull << 20) << i;
    a.address = addresses[i] = 0x7f3a00000000ull + (static_cast<uint64_t>(i) << 34);
    main.calls.add(a);
  }
  ApiRecord pinned = call(main, ApiId::cudaMallocHost, rng_.around(900000));
  pinned.bytes = 64ull << 20;
  pinned.address = 0x7f1200000000ull;
  main.calls.add(pinned);

  // What the end takes: the frees and the close of an open step.
  const uint64_t reserve = kAllocations + 2;
  for (;;) {
    Thread* t = threads_.front().get();
    for (auto& other : threads_)
      if (other->now < t->now) t = other.get();
    const Unit u = next_unit(*t);
    if (counts_.records() + records_of(u) + reserve > s_.records) break;
    work(*t, u);
    ++t->units;
    if (pending_ >= kFrameRecords) flush(false);
  }
  for (auto& t : threads_) main.now = std::max(main.now, t->now);
  if (in_step_)
    pop(main);
  else
    mark(main, nvtx("gpuprof-gen: end"));
  for (uint32_t i = 0; i < kAllocations; ++i) {
    ApiRecord a = call(main, ApiId::cudaFree, rng_.around(40000));
    a.address = addresses[i];
    main.calls.add(a);
  }
  ApiRecord free_host = call(main, ApiId::cudaFreeHost, rng_.around(200000));
  free_host.address = pinned.address;
  main.calls.add(free_host);
  // Exactly the records asked for: the rest are marks.
  while (counts_.records() < s_.records) mark(main, nvtx("gpuprof-gen: pad"));
  flush(true);
  // What the file holds: the records made while a window was open.
  counts_.api -= skipped_.api;
  counts_.gpu -= skipped_.gpu;
  counts_.ranges -= skipped_.ranges;

  FooterFields f;
  f.end_clock_ns = main.now + 1'000'000;
  f.end_wall_ns = f.end_clock_ns + static_cast<uint64_t>(kWallOffsetNs);
  f.api_records = counts_.api;
  f.gpu_records = counts_.gpu;
  f.frames = counts_.frames;
  f.peak_queue_bytes = 4ull << 20;
  f.max_queue_bytes = 256ull << 20;
  f.timestamp_source = "clock_gettime";
  frame_.clear();
  encode_footer(frame_, f);
  write_frame(frame_);
  if (std::fflush(out_) != 0) write_failed_ = true;
  if (write_failed_ || strings_.failed() || frame_.failed()) {
    error = write_failed_ ? "write failed" : "out of memory";
    return false;
  }
  return true;
}

}  // namespace

uint64_t minimum_records(const Settings& settings) {
  // Thread names, allocations and frees, the last step's close.
  return settings.threads + 2 * (kAllocations + 1) + 1;
}

bool write_rank(const Settings& settings, std::FILE* out, Counts& counts, std::string& error) {
  counts = Counts{};
  Generator generator(settings, out, counts);
  return generator.run(error);
}

}  // namespace gprof::gen
