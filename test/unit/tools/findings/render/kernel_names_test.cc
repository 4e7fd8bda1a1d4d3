// Issue 32 item 2: a finding's GPU line printed PyTorch kernels of 300-700
// characters on a real run. The text forms name them short; JSON whole.
#include <catch2/catch.hpp>

#include <string>

#include "tools/findings/render/render.h"

namespace gprof::findings {
namespace {

// A kernel of torch 2.11 on an H200 (../shared/real-gpu/h200-2026-11-27/detection-off/
// nvtx-708.gprof), as `gpuprof analyze` found it in a finding.
constexpr const char* kReduce =
    "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
    "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, "
    "4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda("
    "float, float)#1}>, unsigned int, float, 4, 4>)";

Analysis one_finding() {
  Analysis a;
  Finding f;
  f.rule = "launch-bound";
  f.summary = "Launches outpace the GPU.";
  f.suggestion = "Fuse.";
  f.where.activities = {{kReduce, 1000, 0.6},
                        {"square(float*, int)", 500, 0.3},
                        {"Memcpy HtoD (Pageable -> Device)", 100, 0.1}};
  a.findings.push_back(f);
  return a;
}

TEST_CASE("analyze renders: kernels short in text and Markdown, whole in JSON", "[analyze]") {
  Analysis a = one_finding();
  const std::string text = render_text(a);
  CHECK(text.find("GPU      reduce_kernel<128, 4, ReduceOp<…>> (60.0%), square(float*, int) "
                  "(30.0%), Memcpy HtoD (Pageable -> Device) (10.0%)") != std::string::npos);
  CHECK(text.find("at::native") == std::string::npos);
  CHECK(render_markdown(a).find("`reduce_kernel<128, 4, ReduceOp<…>>`") != std::string::npos);
  CHECK(render_json(a).find("void at::native::reduce_kernel<128, 4,") != std::string::npos);
  a.full_names = true;
  CHECK(render_text(a).find(kReduce) != std::string::npos);
}

}  // namespace
}  // namespace gprof::findings
