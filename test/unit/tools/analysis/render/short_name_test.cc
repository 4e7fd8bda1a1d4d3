#include "tools/analysis/render/short_name.h"

#include <catch2/catch.hpp>

using gprof::analysis::short_kernel_name;

// The names below are the demangled kernels of real recordings: torch 2.11 on an H200
// (../shared/real-gpu/h200-2026-11-27/detection-off/torch-681.gprof and nvtx-708.gprof).
TEST_CASE("short kernel names: PyTorch's templates, lambdas and namespaces", "[render]") {
  CHECK(
      short_kernel_name(
          "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
          "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
          "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
          "float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
          "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda("
          "float, float)#1}>, unsigned int, float, 4, 4>)") ==
      "reduce_kernel<128, 4, ReduceOp<…>>");
  CHECK(
      short_kernel_name(
          "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
          "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
          "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::"
          "operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
          "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
          "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
          "const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)") ==
      "vectorized_elementwise_kernel<4, launch_clamp_scalar::{lambda}, array<…>>");
  CHECK(short_kernel_name(
            "void at::native::elementwise_kernel<128, 2, "
            "at::native::gpu_kernel_impl_nocast<at::native::mse_backward_cuda_kernel(at::"
            "TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::"
            "operator()() const::{lambda(float, float, float)#1}>(at::TensorIteratorBase&, "
            "at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar "
            "const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
            "const::{lambda(float, float, float)#1} const&)::{lambda(int)#1}>(int, "
            "at::native::gpu_kernel_impl_nocast<at::native::mse_backward_cuda_kernel(at::"
            "TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#2}::"
            "operator()() const::{lambda(float, float, float)#1}>(at::TensorIteratorBase&, "
            "at::native::mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar "
            "const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
            "const::{lambda(float, float, float)#1} const&)::{lambda(int)#1})") ==
        "elementwise_kernel<128, 2, gpu_kernel_impl_nocast<…>::{lambda}>");
  CHECK(short_kernel_name(
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::("
            "anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
            "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "
            "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, "
            "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "
            "std::plus<float>, float)") ==
        "multi_tensor_apply_kernel<TensorListMetadata<…>, BinaryOpListAlphaFunctor<…>, plus<…>, "
        "float>");
  CHECK(short_kernel_name("void at::native::vectorized_elementwise_kernel<4, "
                          "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                          "at::native::FillFunctor<float>, std::array<char*, 1ul>)") ==
        "vectorized_elementwise_kernel<4, FillFunctor<…>, array<…>>");
  CHECK(short_kernel_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>("
                          "cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)") ==
        "Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>");
}

TEST_CASE("short kernel names: plain functions and names that are not C++", "[render]") {
  CHECK(short_kernel_name("vector_add(float const*, float const*, float*, int)") == "vector_add");
  CHECK(short_kernel_name("ns::square(float*, int)") == "square");
  const char* cublas =
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
      "alignc4_execute_kernel__5x_cublas";
  CHECK(short_kernel_name(cublas) == cublas);
  CHECK(short_kernel_name("my_kernel") == "my_kernel");
  CHECK(short_kernel_name("<unknown kernel>") == "<unknown kernel>");
  // Unbalanced (an operator< in a template argument): left alone, never mangled further.
  CHECK(short_kernel_name("void k<&operator<>(int)") == "void k<&operator<>(int)");
  CHECK(short_kernel_name("") == "");
  // gprof's own names for copies and sets, in tables that also hold kernels.
  CHECK(short_kernel_name("Memcpy HtoD (Pageable -> Device)") ==
        "Memcpy HtoD (Pageable -> Device)");
  CHECK(short_kernel_name("void (anonymous namespace)::fill<int>(int*)") == "fill<int>");
}

TEST_CASE("readable kernel names: short only when the name does not fit torch's column",
          "[render]") {
  using gprof::analysis::readable_kernel_name;
  CHECK(readable_kernel_name("square(float*, int)") == "square(float*, int)");
  CHECK(readable_kernel_name("void at::native::vectorized_elementwise_kernel<4, "
                             "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                             "at::native::FillFunctor<float>, std::array<char*, 1ul>)") ==
        "vectorized_elementwise_kernel<4, FillFunctor<…>, array<…>>");
}
