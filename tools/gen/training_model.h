// What gpuprof-gen's training step is made of: the kernels a transformer
// step runs, the ops PyTorch's emit_nvtx names around them, and the sizes
// of the run (graphs, allocations, frames).
#pragma once

#include <cstdint>

#include "formats/record.h"

namespace gprof::gen {

// CUPTI's enums (cupti_activity.h) and cudaMemcpyKind (driver_types.h).
inline constexpr uint8_t kCuptiCopyHtoD = 1, kCuptiCopyDtoH = 2, kCuptiCopyDtoD = 8;
inline constexpr uint8_t kMemPageable = 1, kMemPinned = 2, kMemDevice = 3;
inline constexpr uint8_t kCudaHtoD = 1, kCudaDtoH = 2, kCudaDtoD = 3;
inline constexpr uint32_t kSyncStreamSynchronize = 3;

struct KernelSpec {
  const char* name;  // as CUPTI reports it: mangled, or a C name
  Dim3 grid, block;
  uint32_t shared_mem, registers;
  uint64_t gpu_ns;  // typical duration
};

// Names of the kind a transformer's step runs (cuBLAS and PyTorch's own).
inline const KernelSpec kKernels[] = {
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
inline constexpr uint32_t kKernelCount = sizeof kKernels / sizeof kKernels[0];
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

inline const OpSpec kForwardOps[] = {
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
inline const OpSpec kBackwardOps[] = {
    {"AddmmBackward0", "aten::mm, sizes = [[16384, 4096], [4096, 1024]]", {kSgemmNn, kSgemmTn}, 2},
    {"NativeLayerNormBackward0", "aten::native_layer_norm_backward", {kLayerNormGrad, kFill}, 2},
    {"ReluBackward0", "aten::threshold_backward", {kMul}, 1},
    {"NativeDropoutBackward0", "aten::native_dropout_backward", {kMul}, 1},
    {"SoftmaxBackward0", "aten::_softmax_backward_data", {kSoftmaxGrad}, 1},
    {"BmmBackward0", "aten::bmm", {kXmma, kXmma}, 2},
};
inline constexpr uint32_t kForwardCount = sizeof kForwardOps / sizeof kForwardOps[0];
inline constexpr uint32_t kBackwardCount = sizeof kBackwardOps / sizeof kBackwardOps[0];

inline constexpr uint32_t kGraphs = 2, kGraphNodes = 8;
inline constexpr uint32_t kAllocations =
    4;  // cudaMalloc at start, cudaFree at the end; + one pinned
inline constexpr uint64_t kFrameRecords = 40000;  // pending records that make a frame
// Wall time = recording clock + this: the run starts on 2026-01-01.
inline constexpr int64_t kWallOffsetNs = 1'767'225'600'000'000'000ll - 5'000'000'000'000ll;

}  // namespace gprof::gen
