// Files read on several threads (--jobs) give what one visitor reading them
// one by one gives: the same rows in the same order with the same sums, the
// same lines under the table, the same memory and launches views.
#include "tools/analysis/read/parallel_files.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "test/unit/tools/training_fixture.h"
#include "tools/analysis/aggregate/launches.h"
#include "tools/analysis/aggregate/ops_files.h"
#include "tools/analysis/aggregate/transfers.h"
#include "tools/analysis/read/visitor_chain.h"

namespace gprof::analysis {
namespace {

// Several processes: ranks of a training loop, a capture with an unpaired
// record, one of them twice, and a file that cannot be read.
std::vector<std::string> some_files() {
  return {test::write_training_capture("par_rank0.gprof", 42, "0"),
          test::write_subscribed_capture("par_subscribed.gprof"),
          test::write_training_capture("par_rank1.gprof", 43, "1"),
          test::write_temp_file("par_regressed.gprof", test::regressed_training_capture()),
          "/nonexistent/par_missing.gprof",
          test::write_training_capture("par_rank0.gprof", 42, "0")};
}

auto columns(const Row& r) {
  return std::tuple(r.name, r.kind, r.gpu_kind, r.group, r.count, r.self_cpu_ns, r.cpu_total_ns,
                    r.self_device_ns, r.device_total_ns, r.issued_device_ns, r.cpu_mem,
                    r.self_cpu_mem, r.device_mem, r.self_device_mem);
}

auto columns(const FileThroughput& t) {
  std::vector<std::pair<uint32_t, uint64_t>> devices;
  for (const DeviceBusy& d : t.devices) devices.emplace_back(d.device, d.busy_ns);
  return std::tuple(t.file, t.pid, t.steps.has_value(), t.window_begin_ns, t.window_end_ns, devices,
                    t.sync_ns, t.sync_calls);
}

// What one OpsRowsVisitor and one ThroughputVisitor make of the files read
// one by one (load_files), as report did before --jobs.
OpsFiles sequential(const std::vector<std::string>& paths, const OpsOptions& options) {
  OpsFiles out;
  OpsRowsVisitor ops(out.rows, options);
  ThroughputVisitor throughput({}, options.ranges.empty() ? nullptr : &ops);
  VisitorChain chain({&ops, &throughput});
  out.files = load_files(paths, chain);
  out.throughput = throughput.files();
  out.saw_memory = ops.saw_memory();
  return out;
}

void check_same(OpsFiles expected, OpsFiles got) {
  REQUIRE(got.files.size() == expected.files.size());
  for (size_t i = 0; i < got.files.size(); ++i) {
    CHECK(got.files[i].path == expected.files[i].path);
    CHECK(got.files[i].status.opened == expected.files[i].status.opened);
    CHECK(got.files[i].gpu.records == expected.files[i].gpu.records);
    CHECK(got.files[i].gpu.unpaired == expected.files[i].gpu.unpaired);
  }
  CHECK(got.saw_memory == expected.saw_memory);
  REQUIRE(got.throughput.size() == expected.throughput.size());
  for (size_t i = 0; i < got.throughput.size(); ++i)
    CHECK(columns(got.throughput[i]) == columns(expected.throughput[i]));
  const std::vector<Row> want = expected.rows.finish();
  const std::vector<Row> rows = got.rows.finish();
  REQUIRE(rows.size() == want.size());
  REQUIRE(want.size() > 10);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i << ": " << want[i].name << " / " << rows[i].name);
    CHECK(columns(rows[i]) == columns(want[i]));
  }
}

TEST_CASE("parallel files: key-averages rows as one sequential read, any --jobs",
          "[parallel_files]") {
  const std::vector<std::string> paths = some_files();
  for (const OpsOptions& options :
       {OpsOptions{}, OpsOptions{GroupBy::kThread, {}, false},
        OpsOptions{GroupBy::kRank, {}, false}, OpsOptions{GroupBy::kStream, {}, false},
        OpsOptions{GroupBy::kName, {"ProfilerStep*"}, false},
        OpsOptions{GroupBy::kName, {}, true}}) {
    for (unsigned jobs : {1u, 2u, 3u, 8u}) {
      INFO("group-by " << group_by_name(options.group_by) << ", jobs " << jobs);
      check_same(
          sequential(paths, options),
          aggregate_ops_files(paths, OpsFilesOptions{options, std::vector<std::string>{}, jobs}));
    }
  }
}

// One file's view visitor, for load_files_parallel.
template <typename View>
struct ViewWork : FileWork {
  ProfileVisitor& visitor() override { return view; }
  View view;
};

TEST_CASE("parallel files: memory and launches views merge in file order", "[parallel_files]") {
  const std::vector<std::string> paths = some_files();
  TransfersVisitor transfers_once;
  LaunchesVisitor launches_once;
  VisitorChain chain({&transfers_once, &launches_once});
  load_files(paths, chain);
  const std::vector<TransferRow> want_transfers = transfers_once.finish();
  const std::vector<LaunchRow> want_launches = launches_once.finish();
  REQUIRE(want_transfers.size() >= 3);
  REQUIRE(want_launches.size() >= 3);

  for (unsigned jobs : {1u, 2u, 4u}) {
    INFO("jobs " << jobs);
    TransfersVisitor transfers;
    LaunchesVisitor launches;
    std::vector<uint32_t> order;
    const std::vector<FileInfo> files = load_files_parallel(
        paths, jobs, [](uint32_t) { return std::make_unique<ViewWork<TransfersVisitor>>(); },
        [&](uint32_t file, FileWork& work, const FileInfo& info) {
          order.push_back(file);
          CHECK(info.path == paths[file]);
          transfers.merge(std::move(static_cast<ViewWork<TransfersVisitor>&>(work).view));
        });
    CHECK(order == std::vector<uint32_t>{0, 1, 2, 3, 4, 5});
    CHECK(files.size() == paths.size());
    load_files_parallel(
        paths, jobs, [](uint32_t) { return std::make_unique<ViewWork<LaunchesVisitor>>(); },
        [&](uint32_t, FileWork& work, const FileInfo&) {
          launches.merge(std::move(static_cast<ViewWork<LaunchesVisitor>&>(work).view));
        });
    const std::vector<TransferRow> got_transfers = transfers.finish();
    REQUIRE(got_transfers.size() == want_transfers.size());
    for (size_t i = 0; i < got_transfers.size(); ++i) {
      const TransferRow& a = got_transfers[i];
      const TransferRow& b = want_transfers[i];
      CHECK(std::tuple(a.name, a.bucket, a.count, a.bytes, a.gpu_ns) ==
            std::tuple(b.name, b.bucket, b.count, b.bytes, b.gpu_ns));
    }
    const std::vector<LaunchRow> got_launches = launches.finish();
    REQUIRE(got_launches.size() == want_launches.size());
    for (size_t i = 0; i < got_launches.size(); ++i) {
      const LaunchRow& a = got_launches[i];
      const LaunchRow& b = want_launches[i];
      CHECK(a.name == b.name);
      CHECK(a.count == b.count);
      for (const auto& [x, y] :
           {std::pair{a.api, b.api}, std::pair{a.queue, b.queue}, std::pair{a.gpu, b.gpu}})
        CHECK(std::tuple(x.avg, x.median, x.min, x.max) ==
              std::tuple(y.avg, y.median, y.min, y.max));
    }
  }
}

TEST_CASE("parallel files: an exception on a worker reaches the caller", "[parallel_files]") {
  const std::vector<std::string> paths = some_files();
  struct Throwing : FileWork {
    ProfileVisitor& visitor() override { throw std::runtime_error("made to fail"); }
  };
  CHECK_THROWS_WITH(load_files_parallel(
                        paths, 3, [](uint32_t) { return std::make_unique<Throwing>(); },
                        [](uint32_t, FileWork&, const FileInfo&) {}),
                    "made to fail");
}

TEST_CASE("parallel files: decoders are the cores the files leave idle, a few a file at most",
          "[parallel_files]") {
  CHECK(decoders_per_file(1, 1) == 0);
  CHECK(decoders_per_file(2, 1) == 1);
  CHECK(decoders_per_file(3, 1) == 2);
  // Frames in flight cost memory, not time: more cores decode no faster.
  CHECK(decoders_per_file(16, 1) == kMaxDecoders);
  CHECK(decoders_per_file(224, 1) == kMaxDecoders);
  CHECK(decoders_per_file(4, 3) == 0);  // a core per file, none left over
  CHECK(decoders_per_file(8, 4) == 1);
  CHECK(decoders_per_file(64, 8) == kMaxDecoders);
  CHECK(decoders_per_file(2, 0) == 1);  // no file counts as one
  CHECK(decoders_per_file(0, 1) ==
        std::min(default_jobs() >= 2 ? default_jobs() - 1 : 0, kMaxDecoders));
}

}  // namespace
}  // namespace gprof::analysis
