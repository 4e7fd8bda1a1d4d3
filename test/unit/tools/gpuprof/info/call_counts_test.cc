// info's counts read from a batch's columns (streamed) and from one record
// at a time (the in-memory loader's calls) must agree: runs of one API are
// counted at once from the columns, so the tests cut runs every way the
// columns can (API, result, runtime).
#include "tools/gpuprof/info/call_counts.h"

#include <catch2/catch.hpp>

#include <vector>

#include "formats/api_ids.h"
#include "formats/read/record_batches.h"

namespace gprof::cli {
namespace {

struct Call {
  ApiId api;
  int32_t result;
  uint32_t runtime;
};

// One thread's batch of `calls`, with the columns every API needs.
struct Columns {
  explicit Columns(uint32_t tid, const std::vector<Call>& calls, bool runtimes = true) {
    for (const Call& c : calls) {
      api.push_back(static_cast<uint32_t>(c.api));
      result.push_back(c.result);
      runtime.push_back(c.runtime);
      start_delta.push_back(10);
      duration.push_back(5);
      correlation.push_back(api.size());
    }
    batch.tid = tid;
    batch.size = static_cast<uint32_t>(calls.size());
    batch.api = api.data();
    batch.result = result.data();
    batch.runtime = runtimes ? runtime.data() : nullptr;
    batch.start_delta = start_delta.data();
    batch.duration = duration.data();
    batch.correlation = correlation.data();
  }
  std::vector<uint32_t> api, runtime;
  std::vector<int32_t> result;
  std::vector<int64_t> start_delta;
  std::vector<uint64_t> duration, correlation;
  ApiBatch batch;
};

void one_by_one(CallCounts& counts, uint32_t tid, const std::vector<Call>& calls,
                bool runtimes = true) {
  for (const Call& c : calls) {
    ApiRecord r{};
    r.api = c.api;
    r.tid = tid;
    r.result = c.result;
    r.runtime = runtimes ? static_cast<uint8_t>(c.runtime) : 0;
    counts.on_api(r);
  }
}

void require_same(const CallCounts& a, const CallCounts& b) {
  CHECK(a.per_api() == b.per_api());
  CHECK(a.failures() == b.failures());
  CHECK(a.threads() == b.threads());
  CHECK(a.launches() == b.launches());
  CHECK(a.graph_launches() == b.graph_launches());
  CHECK(a.runtimes() == b.runtimes());
}

const std::vector<Call> kLoop = {
    {ApiId::cudaLaunchKernel, 0, 13},
    {ApiId::cudaLaunchKernel, 0, 13},
    {ApiId::cudaLaunchKernel, 0, 12},
    {ApiId::cudaLaunchKernel, 0, 12},
    {ApiId::cudaLaunchKernel_ptsz, 0, 12},
    {ApiId::cudaLaunchKernel, 2, 12},
    {ApiId::cudaLaunchKernel, 2, 12},
    {ApiId::cudaLaunchKernel, 0, 12},
    {ApiId::cudaGraphLaunch, 0, 13},
    {ApiId::cudaGraphLaunch_ptsz, 0, 13},
    {ApiId::cudaMemcpy, 1, 13},
    {ApiId::cudaMemcpy, 1, 13 + 256},
};

TEST_CASE("a batch's columns count as its records one by one") {
  CallCounts streamed, loaded;
  Columns first(7, kLoop), second(9, {kLoop.rbegin(), kLoop.rend()});
  streamed.on_api_batch(first.batch);
  streamed.on_api_batch(second.batch);
  one_by_one(loaded, 7, kLoop);
  one_by_one(loaded, 9, {kLoop.rbegin(), kLoop.rend()});
  require_same(streamed, loaded);

  // The values themselves: APIs that share a display name count together,
  // a runtime as the record's byte holds it.
  const auto per_api = streamed.per_api();
  CHECK(per_api.at("cudaLaunchKernel") == 16);
  CHECK(per_api.at("cudaGraphLaunch") == 4);
  CHECK(per_api.at("cudaMemcpy") == 4);
  CHECK(streamed.failures().at({"cudaLaunchKernel", 2}) == 4);
  CHECK(streamed.failures().at({"cudaMemcpy", 1}) == 4);
  CHECK(streamed.launches() == 16);
  CHECK(streamed.graph_launches() == 4);
  CHECK(streamed.runtimes() == std::map<int, uint64_t>{{12, 12}, {13, 12}});
  CHECK(streamed.threads() == 2);
}

TEST_CASE("a batch without a runtime column counts its calls as unknown") {
  CallCounts streamed, loaded;
  Columns columns(7, kLoop, false);
  streamed.on_api_batch(columns.batch);
  one_by_one(loaded, 7, kLoop, false);
  require_same(streamed, loaded);
  CHECK(streamed.runtimes() == std::map<int, uint64_t>{{0, kLoop.size()}});
}

TEST_CASE("strings by kind, and clear() forgets everything") {
  CallCounts counts;
  pb::StringEntry kernel, nvtx;
  kernel.set_kind(pb::StringEntry::KERNEL);
  nvtx.set_kind(pb::StringEntry::NVTX);
  counts.on_string(kernel);
  counts.on_string(kernel);
  counts.on_string(nvtx);
  CHECK(counts.strings(pb::StringEntry::KERNEL) == 2);
  CHECK(counts.strings(pb::StringEntry::NVTX) == 1);
  CHECK(counts.strings(pb::StringEntry::THREAD) == 0);
  Columns columns(7, kLoop);
  counts.on_api_batch(columns.batch);
  counts.clear();
  require_same(counts, CallCounts{});
  CHECK(counts.strings(pb::StringEntry::KERNEL) == 0);
}

}  // namespace
}  // namespace gprof::cli
