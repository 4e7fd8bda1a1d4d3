// Nsight Systems stores three names per kernel (CUPTI_ACTIVITY_KIND_KERNEL):
// demangledName (with templates and parameters), shortName (the base
// function name: what nsys's summaries show by default with :base) and
// mangledName. gprof's file keeps the mangled name; the other two are
// derived here.
#pragma once

#include <string>
#include <string_view>

namespace gprof::exporter {

// The function's own name in a demangled signature, without its return
// type, scope, template arguments and parameters:
//   "void at::native::elementwise_kernel<128, 4>(int, float*)" -> "elementwise_kernel"
//   "square(float*, int)" -> "square";  "plain_c_kernel" -> "plain_c_kernel".
// A name that yields no identifier this way comes back whole.
std::string short_kernel_name(std::string_view demangled);

}  // namespace gprof::exporter
