#include "test/unit/tools/gpu_fixtures.h"

#include "test/unit/formats/sidecar_builder.h"

namespace gprof::test {

ApiRecord make_launch(ApiId api, uint64_t start_ns, uint64_t duration_ns, uint32_t kernel,
                      uint64_t correlation) {
  ApiRecord r = make_call(api, start_ns, duration_ns);
  r.kernel = kernel;
  r.correlation = correlation;
  return r;
}

ApiRecord make_correlated(ApiId api, uint64_t start_ns, uint64_t duration_ns,
                          uint64_t correlation) {
  ApiRecord r = make_call(api, start_ns, duration_ns);
  r.correlation = correlation;
  return r;
}

GpuRecord make_memset(uint8_t dst_kind, uint64_t bytes, uint64_t start_ns, uint64_t duration_ns,
                      uint64_t correlation) {
  GpuRecord r{};
  r.kind = GpuKind::kMemset;
  r.start_ns = start_ns;
  r.end_ns = start_ns + duration_ns;
  r.correlation = correlation;
  r.dst_kind = dst_kind;
  r.bytes = bytes;
  r.detail = 0xff;  // the value set
  r.stream = 7;
  return r;
}

GpuRecord make_sync(uint32_t type, uint64_t start_ns, uint64_t duration_ns, uint64_t correlation) {
  GpuRecord r{};
  r.kind = GpuKind::kSync;
  r.start_ns = start_ns;
  r.end_ns = start_ns + duration_ns;
  r.correlation = correlation;
  r.detail = type;
  r.stream = 7;
  return r;
}

pb::CuptiStatus subscribed_status() {
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  status.set_version(130001);
  status.set_timestamps_aligned(true);
  return status;
}

std::string write_subscribed_capture(const std::string& name) {
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}, {2, "vector_add"}})
      // GPU records before the calls that issued them: pairing must not
      // depend on the order the writer happened to use.
      .gpu({make_kernel(1, 1500, 4000, 1), make_kernel(1, 5500, 6000, 2),
            make_kernel(2, 11500, 1000, 3),
            make_copy(kCopyHtoD, kMemPageable, kMemDevice, 4096, 12500, 2000, 4),
            make_memset(kMemDevice, 1024, 14500, 500, 5), make_sync(kSyncStream, 6000, 10000, 6),
            make_copy(kCopyDtoH, kMemDevice, kMemPinned, 4096, 20500, 1500, 7),
            make_kernel(1, 30000, 100, 99)})
      .calls(10, {make_launch(ApiId::cudaLaunchKernel, 1000, 200, 1, 1),
                  make_launch(ApiId::cudaLaunchKernel, 2000, 300, 1, 2),
                  make_launch(ApiId::cudaLaunchKernelInternal_ptsz, 3000, 100, 2, 3),
                  make_correlated(ApiId::cudaMemcpyAsync, 4000, 500, 4),
                  make_correlated(ApiId::cudaMemsetAsync, 5000, 50, 5),
                  make_correlated(ApiId::cudaStreamSynchronize, 6000, 10000, 6),
                  make_correlated(ApiId::cudaMemcpy, 20000, 3000, 7)});
  pb::Footer footer;
  footer.set_api_records(7);
  footer.set_gpu_records(8);
  return write_temp_file(name, file.footer(footer).bytes());
}

std::string write_wrapped_capture(const std::string& name, bool external) {
  std::vector<ApiRecord> calls;
  std::vector<GpuRecord> gpu;
  std::vector<std::pair<uint64_t, uint64_t>> mapping;
  std::vector<std::pair<uint32_t, std::string>> kernels;
  for (uint32_t i = 0; i < 6; ++i) {
    const uint64_t cupti = wrapped_id(i) & 0xFFFFFFFFu;  // as CUPTI hands it out
    const uint64_t start = 1000 * (i + 1);
    calls.push_back(
        make_launch(ApiId::cudaLaunchKernel, start, 100, i + 1, external ? i + 1 : cupti));
    calls.back().shared_mem = 16 * (i + 1);  // dynamic
    gpu.push_back(make_kernel(i + 1, start + 500, 200, cupti));
    gpu.back().shared_mem = 1024 + 16 * (i + 1);  // static + dynamic, as CUPTI reports it
    mapping.emplace_back(cupti, i + 1);
    kernels.emplace_back(i + 1, "k" + std::to_string(i));
  }
  pb::CuptiStatus status = subscribed_status();
  if (external) status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  SidecarBuilder file;
  file.header(test_header()).cupti(status).strings(kernels).gpu(gpu);
  if (external) file.external(mapping);
  file.calls(10, calls);
  return write_temp_file(name, file.bytes());
}

}  // namespace gprof::test
