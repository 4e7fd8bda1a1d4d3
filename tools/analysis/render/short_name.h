// Kernel names a person can read. A demangled PyTorch kernel is 300-700
// characters of namespaces, template arguments, lambdas and parameters, and
// a table cut at 55 characters shows four rows of "void
// at::native::vectorized_elementwise_kernel<4, at...". nsys's shortName keeps
// the bare function name, which tells these apart no better; this keeps what
// tells them apart: the first level of template arguments, each with its own
// arguments cut, and the function a lambda was written in.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gprof::analysis {

// A demangled kernel name without its return type, parameter list,
// namespaces and template arguments below the first level; a lambda is
// named by where it was written:
//   void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, ...> >(...)
//     -> reduce_kernel<128, 4, ReduceOp<…>>
//   void at::native::vectorized_elementwise_kernel<4,
//       at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::...,
//       std::array<char*, 3ul> >(...)
//     -> vectorized_elementwise_kernel<4, mse_kernel_cuda::{lambda}, array<…>>
// Names that are not C++ (extern "C", cuBLAS's sm80_xmma_...) and names
// whose brackets do not balance (an operator< in them) come back unchanged.
std::string short_kernel_name(std::string_view demangled);

// The name the text forms show: the demangled name itself while it fits
// torch's name column (kLongKernelName display characters: "square(float*,
// int)", whose overloads only the parameters tell apart), else
// short_kernel_name.
inline constexpr size_t kLongKernelName = 55;
std::string readable_kernel_name(std::string_view demangled);

}  // namespace gprof::analysis
