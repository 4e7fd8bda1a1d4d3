#include "test/unit/tools/training_fixture.h"

#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof::test {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

RangeEvent event(RangeOp op, uint64_t time, uint32_t name = 0, uint64_t id = 0) {
  return make_range_event(op, time, name, id);
}

ApiRecord memory(ApiId api, uint64_t start, uint64_t duration, uint64_t address,
                 uint64_t bytes = 0) {
  ApiRecord r = make_call(api, start, duration);
  r.address = address;
  r.bytes = bytes;
  return r;
}

ApiRecord copy(ApiId api, uint64_t start, uint64_t duration, uint64_t correlation, uint64_t bytes,
               uint8_t copy_kind) {
  ApiRecord r = make_correlated(api, start, duration, correlation);
  r.bytes = bytes;
  r.copy_kind = copy_kind;
  r.stream = 0x5000;
  return r;
}

ApiRecord square_launch(uint64_t start, uint64_t correlation) {
  ApiRecord r = make_launch(ApiId::cudaLaunchKernel, start, 500, 1, correlation);
  r.grid = {4096, 1, 1};
  r.block = {256, 1, 1};
  return r;
}

ApiRecord vector_add_launch(uint64_t start, uint64_t correlation) {
  ApiRecord r = make_launch(ApiId::cudaLaunchKernel, start, 500, 2, correlation);
  r.grid = {1024, 1, 1};
  r.block = {128, 1, 1};
  r.shared_mem = 512;
  return r;
}

ApiRecord memset_async(uint64_t start, uint64_t duration, uint64_t correlation, uint64_t bytes) {
  ApiRecord r = make_correlated(ApiId::cudaMemsetAsync, start, duration, correlation);
  r.bytes = bytes;
  r.stream = 0x5000;
  return r;
}

// Named for its configuration and times: string id 2 may name another kernel
// (TrainingChanges::backward_kernel).
GpuRecord vector_add(uint64_t start, uint64_t correlation) {
  GpuRecord r = make_kernel(2, start, 2000, correlation);
  r.grid = {1024, 1, 1};
  r.block = {128, 1, 1};
  r.shared_mem = 512 + 1024;
  r.stream = 9;
  return r;
}

// How regressed_training_capture() differs from training_capture() (the
// header lists it); the defaults are the training capture.
struct TrainingChanges {
  uint64_t square_ns = 4000;
  std::string_view backward_kernel = "vector_add";
  bool memset_in_step1 = false;
};

std::string capture(const pb::FileHeader& header, const TrainingChanges& changes) {
  // Each square starts when the one before it on stream 7 ends, and so does
  // the first backward kernel.
  const uint64_t square2_start = 13000 + changes.square_ns;
  const uint64_t backward_start = square2_start + changes.square_ns;
  // cudaMemcpyKind: 1 HtoD, 2 DtoH.
  std::vector<ApiRecord> main_calls = {
      memory(ApiId::cudaMalloc, 1000, 1000, 0xB000, 4 * kMiB),
      memory(ApiId::cudaMallocHost, 2000, 1000, 0xC000, kMiB),
      copy(ApiId::cudaMemcpy, 3000, 2000, 9, kMiB, 1),
      square_launch(12500, 1),
      square_launch(15500, 2),
      memory(ApiId::cudaMalloc, 18500, 1000, 0xA000, kMiB),
      vector_add_launch(20500, 3),
      memory(ApiId::cudaFree, 21500, 500, 0xA000),
      copy(ApiId::cudaMemcpyAsync, 22500, 1000, 4, 64 * 1024, 2),
      make_correlated(ApiId::cudaStreamSynchronize, 24000, 3000, 5),
      square_launch(32500, 6),
      vector_add_launch(40500, 7),
      copy(ApiId::cudaMemcpyAsync, 42500, 1000, 8, 64 * 1024, 2),
  };
  // Calls stay in time order: the memset comes before the step's last sync.
  if (changes.memset_in_step1) main_calls.push_back(memset_async(43600, 300, 11, 4096));
  main_calls.push_back(make_correlated(ApiId::cudaStreamSynchronize, 44000, 3000, 0));
  const std::vector<RangeEvent> main_ranges = {
      event(RangeOp::kNameThread, 500, 8, 100),
      event(RangeOp::kEnd, 9000, 0, 77),
      event(RangeOp::kPush, 10000, 1),
      event(RangeOp::kPush, 11000, 3),
      event(RangeOp::kPush, 12000, 4),
      event(RangeOp::kPop, 15000),
      event(RangeOp::kPush, 15000, 5),
      event(RangeOp::kPop, 18000),
      event(RangeOp::kPop, 20000),
      event(RangeOp::kPush, 20000, 6),
      event(RangeOp::kPop, 28000),
      event(RangeOp::kPop, 30000),
      event(RangeOp::kPush, 30000, 2),
      event(RangeOp::kPush, 31000, 3),
      event(RangeOp::kPush, 32000, 10),
      event(RangeOp::kPop, 35000),
      event(RangeOp::kPop, 40000),
      event(RangeOp::kPush, 40000, 6),
      event(RangeOp::kPop, 48000),
      event(RangeOp::kMark, 49500, 12),
      event(RangeOp::kPop, 50000),
      event(RangeOp::kPop, 55000),
  };
  const std::vector<RangeEvent> loader_ranges = {
      event(RangeOp::kNameThread, 4000, 9, 200),
      event(RangeOp::kStart, 5000, 7, 77),
      event(RangeOp::kPush, 52000, 11),
  };
  std::vector<GpuRecord> gpu = {
      make_copy(kCopyHtoD, kMemPinned, kMemDevice, kMiB, 3500, 1000, 9),
      make_copy(kCopyHtoD, kMemPageable, kMemDevice, 256 * 1024, 7000, 1000, 10),
      make_kernel(1, 13000, changes.square_ns, 1),
      make_kernel(1, square2_start, changes.square_ns, 2),
      vector_add(backward_start, 3),
      make_copy(kCopyDtoH, kMemDevice, kMemPinned, 64 * 1024, 23000, 1000, 4),
      make_sync(kSyncStream, 24000, 3000, 5),
      make_kernel(1, 33000, changes.square_ns, 6),
      vector_add(41000, 7),
      make_copy(kCopyDtoH, kMemDevice, kMemPinned, 64 * 1024, 43500, 1000, 8)};
  if (changes.memset_in_step1) gpu.push_back(make_memset(kMemDevice, 4096, 44600, 500, 11));
  pb::Footer footer;
  footer.set_end_clock_ns(60000);
  footer.set_api_records(main_calls.size() + 1);
  footer.set_gpu_records(gpu.size());

  SidecarBuilder file;
  file.header(header)
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}, {2, std::string(changes.backward_kernel)}})
      .named(pb::StringEntry::NVTX, {{1, "ProfilerStep#0"},
                                     {2, "ProfilerStep#1"},
                                     {3, "forward"},
                                     {4, "aten::mm, seq = 1"},
                                     {5, "aten::mm, seq = 2"},
                                     {6, "backward"},
                                     {7, "data loading"},
                                     {8, "main"},
                                     {9, "loader"},
                                     {10, "aten::mm, seq = 3"},
                                     {11, "prefetch"},
                                     {12, "checkpoint"}})
      // The threads' calls and NVTX events in one frame, as the writer drains them.
      .drain(
          {{100, main_calls}, {200, {copy(ApiId::cudaMemcpyAsync, 6000, 1000, 10, 256 * 1024, 1)}}},
          {{200, loader_ranges}, {100, main_ranges}})
      .gpu(gpu)
      .footer(footer);
  return file.bytes();
}

}  // namespace

std::string training_capture(uint32_t pid, std::string_view rank) {
  pb::FileHeader header = test_header();
  header.set_pid(pid);
  header.set_rank(std::string(rank));
  return capture(header, TrainingChanges{});
}

std::string regressed_training_capture() {
  return capture(test_header(),
                 TrainingChanges{
                     .square_ns = 6000, .backward_kernel = "_Z5scalePff", .memset_in_step1 = true});
}

std::string write_training_capture(const std::string& name, uint32_t pid, std::string_view rank) {
  return write_temp_file(name, training_capture(pid, rank));
}

}  // namespace gprof::test
