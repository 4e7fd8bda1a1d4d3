#include "test/unit/tools/analyze_fixture.h"

#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof::test {
namespace {

constexpr uint64_t kUs = 1000, kMs = 1000 * kUs;
constexpr uint32_t kTinyOp = 1, kLossKernel = 2, kLossReduce = 3;
// NVTX string ids.
constexpr uint32_t kDataLoader = 1, kUploadParams = 2, kForward = 3, kReadLoss = 4, kMain = 5,
                   kFirstStep = 10;

struct Capture {
  std::vector<ApiRecord> calls;
  std::vector<RangeEvent> ranges;
  std::vector<GpuRecord> gpu;
  uint64_t correlation = 0;

  void range(uint32_t name, uint64_t start, uint64_t end) {
    ranges.push_back(make_range_event(RangeOp::kPush, start, name));
    ranges.push_back(make_range_event(RangeOp::kPop, end));
  }
  void copy(ApiId api, uint8_t api_kind, uint8_t gpu_kind, uint8_t src, uint8_t dst, uint64_t bytes,
            uint64_t start, uint64_t duration, uint64_t gpu_start, uint64_t gpu_duration) {
    ApiRecord r = make_correlated(api, start, duration, ++correlation);
    r.bytes = bytes;
    r.copy_kind = api_kind;
    r.stream = 0x7000;
    calls.push_back(r);
    GpuRecord g = make_copy(gpu_kind, src, dst, bytes, gpu_start, gpu_duration, correlation);
    g.stream = 7;
    gpu.push_back(g);
  }
  void launch(uint32_t kernel, uint64_t start, uint64_t gpu_start, uint64_t gpu_duration) {
    ApiRecord r = make_launch(ApiId::cudaLaunchKernel, start, 5 * kUs, kernel, ++correlation);
    r.grid = {16, 1, 1};
    r.block = {256, 1, 1};
    r.stream = 0x7000;
    calls.push_back(r);
    GpuRecord g = make_kernel(kernel, gpu_start, gpu_duration, correlation);
    g.grid = {16, 1, 1};
    g.block = {256, 1, 1};
    g.stream = 7;
    gpu.push_back(g);
  }
};

}  // namespace

std::string analyze_capture() {
  return analyze_capture_after_setup(0);
}

std::string analyze_capture_after_setup(uint64_t setup_ns) {
  Capture c;
  if (setup_ns > 0)
    c.copy(ApiId::cudaMemcpy, 1, kCopyHtoD, kMemPinned, kMemDevice, 1 << 20, 200 * kUs, 300 * kUs,
           250 * kUs, 200 * kUs);
  std::vector<std::pair<uint32_t, std::string>> names = {{kDataLoader, "data_loader"},
                                                         {kUploadParams, "upload_params"},
                                                         {kForward, "forward"},
                                                         {kReadLoss, "read_loss"},
                                                         {kMain, "main"}};
  c.ranges.push_back(make_range_event(RangeOp::kNameThread, 500 * kUs, kMain, 100));
  for (uint32_t i = 0; i < 10; ++i) {
    const uint64_t t = 1 * kMs + setup_ns + i * 10 * kMs;
    names.emplace_back(kFirstStep + i, "ProfilerStep#" + std::to_string(i));
    c.ranges.push_back(make_range_event(RangeOp::kPush, t, kFirstStep + i));
    c.range(kDataLoader, t, t + 5 * kMs);
    c.copy(ApiId::cudaMemcpy, 1, kCopyHtoD, kMemPageable, kMemDevice, 256 * 1024, t + 4 * kMs,
           100 * kUs, t + 4020 * kUs, 60 * kUs);
    c.ranges.push_back(make_range_event(RangeOp::kPush, t + 5 * kMs, kUploadParams));
    for (uint64_t k = 0; k < 6; ++k) {
      const uint64_t at = t + 5 * kMs + k * 20 * kUs;
      c.copy(ApiId::cudaMemcpyAsync, 1, kCopyHtoD, kMemPinned, kMemDevice, 1024, at, 10 * kUs,
             at + 10 * kUs, 2 * kUs);
    }
    c.ranges.push_back(make_range_event(RangeOp::kPop, t + 5500 * kUs));
    c.ranges.push_back(make_range_event(RangeOp::kPush, t + 5500 * kUs, kForward));
    for (uint64_t k = 0; k < 10; ++k) {
      const uint64_t at = t + 5500 * kUs + k * 150 * kUs;
      c.launch(kTinyOp, at, at + 10 * kUs, 10 * kUs);
    }
    c.launch(kLossKernel, t + 6900 * kUs, t + 6910 * kUs, 890 * kUs);
    ApiRecord sync =
        make_correlated(ApiId::cudaStreamSynchronize, t + 7 * kMs, 800 * kUs, ++c.correlation);
    sync.stream = 0x7000;
    c.calls.push_back(sync);
    c.ranges.push_back(make_range_event(RangeOp::kPop, t + 8 * kMs));
    c.ranges.push_back(make_range_event(RangeOp::kPush, t + 8 * kMs, kReadLoss));
    c.launch(kLossReduce, t + 8 * kMs, t + 8010 * kUs, 490 * kUs);
    c.copy(ApiId::cudaMemcpy, 2, kCopyDtoH, kMemDevice, kMemPinned, 4, t + 8020 * kUs, 490 * kUs,
           t + 8500 * kUs, 2 * kUs);
    c.ranges.push_back(make_range_event(RangeOp::kPop, t + 9 * kMs));
    c.ranges.push_back(make_range_event(RangeOp::kPop, t + 10 * kMs));
  }
  pb::Footer footer;
  footer.set_end_clock_ns(102 * kMs + setup_ns);
  footer.set_api_records(c.calls.size());
  footer.set_gpu_records(c.gpu.size());
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{kTinyOp, "_Z7tiny_opPfi"},
                {kLossKernel, "_Z11loss_kernelPfi"},
                {kLossReduce, "_Z11loss_reducePfi"}})
      .named(pb::StringEntry::NVTX, names)
      .calls(100, c.calls)
      .ranges(100, c.ranges)
      .gpu(c.gpu)
      .footer(footer);
  return file.bytes();
}

std::string launch_phases_capture(bool names_last) {
  constexpr uint32_t kBigKernel = 1, kTinyUpdate = 2, kForwardName = 1, kOptimizerName = 2;
  Capture c;
  uint64_t t = 1 * kMs;
  c.ranges.push_back(make_range_event(RangeOp::kPush, t, kForwardName));
  for (int i = 0; i < 300; ++i, t += 205 * kUs) c.launch(kBigKernel, t, t + 2 * kUs, 200 * kUs);
  c.ranges.push_back(make_range_event(RangeOp::kPop, t));
  c.ranges.push_back(make_range_event(RangeOp::kPush, t, kOptimizerName));
  for (int i = 0; i < 2000; ++i, t += 10 * kUs) c.launch(kTinyUpdate, t, t + 2 * kUs, 1 * kUs);
  c.ranges.push_back(make_range_event(RangeOp::kPop, t));
  pb::Footer footer;
  footer.set_end_clock_ns(t + 1 * kMs);
  footer.set_api_records(c.calls.size());
  footer.set_gpu_records(c.gpu.size());
  const std::vector<std::pair<uint32_t, std::string>> kernels = {
      {kBigKernel, "_Z10big_kernelPfi"}, {kTinyUpdate, "_Z11tiny_updatePfi"}};
  SidecarBuilder file;
  file.header(test_header()).cupti(subscribed_status());
  if (!names_last) file.strings(kernels);
  file.named(pb::StringEntry::NVTX, {{kForwardName, "forward"}, {kOptimizerName, "optimizer"}})
      .calls(100, c.calls)
      .ranges(100, c.ranges)
      .gpu(c.gpu);
  if (names_last) file.strings(kernels);
  file.footer(footer);
  return file.bytes();
}

std::string steps_then_eval_capture() {
  constexpr uint32_t kStepKernel = 1, kEvalKernel = 2, kEval = 1, kStep = 10;
  Capture c;
  std::vector<std::pair<uint32_t, std::string>> names = {{kEval, "eval"}};
  for (uint32_t i = 0; i < 10; ++i) {
    const uint64_t t = 1 * kMs + i * 10 * kMs;
    names.emplace_back(kStep + i, "ProfilerStep#" + std::to_string(i));
    c.ranges.push_back(make_range_event(RangeOp::kPush, t, kStep + i));
    c.launch(kStepKernel, t, t + 10 * kUs, 3 * kMs);
    ApiRecord sync =
        make_correlated(ApiId::cudaStreamSynchronize, t + 50 * kUs, 3 * kMs, ++c.correlation);
    sync.stream = 0x7000;
    c.calls.push_back(sync);
    c.ranges.push_back(make_range_event(RangeOp::kPop, t + 10 * kMs));
  }
  uint64_t t = 101 * kMs;
  c.ranges.push_back(make_range_event(RangeOp::kPush, t, kEval));
  for (int i = 0; i < 300; ++i, t += 1 * kMs) c.launch(kEvalKernel, t, t + 10 * kUs, 1 * kMs);
  c.ranges.push_back(make_range_event(RangeOp::kPop, t));
  pb::Footer footer;
  footer.set_end_clock_ns(t + 1 * kMs);
  footer.set_api_records(c.calls.size());
  footer.set_gpu_records(c.gpu.size());
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{kStepKernel, "_Z11step_kernelPfi"}, {kEvalKernel, "_Z11eval_kernelPfi"}})
      .named(pb::StringEntry::NVTX, names)
      .calls(100, c.calls)
      .ranges(100, c.ranges)
      .gpu(c.gpu)
      .footer(footer);
  return file.bytes();
}

std::string two_thread_launches_capture() {
  constexpr uint32_t kTinyUpdate = 1;
  Capture first, second;
  for (int i = 0; i < 99; ++i) {
    const uint64_t t = 1 * kMs + static_cast<uint64_t>(i) * 10 * kUs;
    first.launch(kTinyUpdate, t, t + 2 * kUs, 1 * kUs);
    second.correlation = first.correlation;
    second.launch(kTinyUpdate, t + 5 * kUs, t + 7 * kUs, 1 * kUs);
    first.correlation = second.correlation;
  }
  std::vector<GpuRecord> gpu = first.gpu;
  gpu.insert(gpu.end(), second.gpu.begin(), second.gpu.end());
  pb::Footer footer;
  footer.set_end_clock_ns(3 * kMs);
  footer.set_api_records(first.calls.size() + second.calls.size());
  footer.set_gpu_records(gpu.size());
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{kTinyUpdate, "_Z11tiny_updatePfi"}})
      .calls(100, first.calls)
      .calls(101, second.calls)
      .gpu(gpu)
      .footer(footer);
  return file.bytes();
}

}  // namespace gprof::test
