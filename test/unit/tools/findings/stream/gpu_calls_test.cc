// Which call issued each GPU record, streamed (gpu_calls.h), against the
// in-memory loader (profile.h, call_pairing.h) that `dump --records gpu` used:
// one entry per timestamped record in file order, paired with the same call,
// work outside the capture window left out, records without a timestamp not
// numbered.
#include "tools/findings/stream/gpu_calls.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/correlation_ids.h"
#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof::findings::stream {
namespace {

constexpr uint64_t kMs = 1'000'000;

// Calls 1..6 in [1, 9ms) of a cudaProfilerApi window; their work, a sync
// record of call 6, one record with no timestamp, one unpaired inside the
// window, one of a call outside it (id 900, no call: left out) and one
// with id 0 (never pairs).
std::string capture(bool windowed) {
  using namespace gprof::test;
  pb::FileHeader header = windowed ? capture_window_header() : test_header();
  SidecarBuilder b;
  b.header(header).strings({{1, "kernel_a"}, {2, "kernel_b"}});
  std::vector<ApiRecord> calls;
  for (uint64_t id = 1; id <= 6; ++id) {
    ApiRecord call = make_call(id == 6 ? ApiId::cudaDeviceSynchronize : ApiId::cudaLaunchKernel,
                               id * kMs, 10'000);
    call.kernel = 1;
    call.correlation = id;
    calls.push_back(call);
  }
  GpuRecord untimed = make_kernel(2, 0, 0, 3);
  untimed.end_ns = 0;
  // Some records come before their calls' frame: the pairing is by id, not by order.
  b.gpu(
      {make_kernel(1, 1 * kMs + 20'000, 5'000, 1), untimed, make_kernel(2, 500'000, 50'000, 900)});
  b.drain({{100, calls}}, {});
  b.gpu({make_kernel(1, 2 * kMs + 20'000, 5'000, 2), make_kernel(2, 3 * kMs + 20'000, 5'000, 3),
         make_kernel(2, 3 * kMs + 30'000, 5'000, 3), make_kernel(2, 4 * kMs, 5'000, 777),
         make_kernel(1, 5 * kMs + 20'000, 5'000, 0), make_sync(kSyncStream, 6 * kMs, 1'000, 6)});
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  if (windowed) {
    status.set_capture_windows_recorded(true);
    for (uint64_t ns : {1 * kMs, 9 * kMs}) status.add_capture_windows(ns);
  }
  b.cupti(status);
  b.footer(pb::Footer{});
  return b.bytes();
}

// What the in-memory loader hands out, in file order: (has a call, its id).
class Loaded final : public analysis::ProfileVisitor {
 public:
  void on_gpu(const analysis::GpuActivity& a) override {
    records.emplace_back(a.call != nullptr, a.call != nullptr ? a.call->correlation : 0);
  }
  std::vector<std::pair<bool, uint64_t>> records;
};

TEST_CASE("each GPU record's call, streamed, as the in-memory loader pairs it",
          "[analyze][stream]") {
  for (const bool windowed : {false, true}) {
    CAPTURE(windowed);
    const std::string path = test::write_temp_file(
        windowed ? "gpu_calls_windowed.gprof" : "gpu_calls.gprof", capture(windowed));
    analysis::FileInfo info;
    GpuCalls calls;
    std::unordered_map<uint32_t, std::string> kernels;
    std::string why;
    REQUIRE(stream_gpu_calls(path, info, calls, kernels, why));
    CHECK(why.empty());
    CHECK(kernels.at(2) == "kernel_b");

    Loaded loaded;
    const analysis::FileInfo in_memory = analysis::load_file(0, path, loaded);
    std::vector<std::pair<bool, uint64_t>> streamed;
    std::vector<uint64_t> seqs;
    auto sorted = calls.sorted();
    for (GpuCall c; sorted.next(c);) {
      seqs.push_back(c.seq);
      // The stream's ids carry one shift for the whole file (stream_ids.h): the recorded
      // id is in the low 32 bits.
      if (c.kept) streamed.emplace_back(c.has_call, c.has_call ? c.correlation & 0xFFFFFFFFu : 0);
    }
    CHECK(seqs == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7});  // the untimed one not numbered
    CHECK(streamed == loaded.records);
    CHECK(streamed.size() == (windowed ? 7u : 8u));  // id 900 before the window: left out
    CHECK(std::count_if(streamed.begin(), streamed.end(), [](auto& r) { return r.first; }) == 5);
    CHECK(info.gpu.records == in_memory.gpu.records);
    CHECK(info.gpu.unpaired == in_memory.gpu.unpaired);
    CHECK(info.gpu.outside_window == in_memory.gpu.outside_window);
    CHECK(info.gpu.no_timestamp == 1);
  }
}

TEST_CASE("a missing file is described, not paired", "[analyze][stream]") {
  analysis::FileInfo info;
  GpuCalls calls;
  std::unordered_map<uint32_t, std::string> kernels;
  std::string why;
  CHECK(stream_gpu_calls("/nonexistent/run.gprof", info, calls, kernels, why));
  CHECK_FALSE(info.status.opened);
}

}  // namespace
}  // namespace gprof::findings::stream
