// The report's stream, which reads a frame's batches whole
// (formats/read/record_batches.h), against the in-memory path (GPROF_STREAM=0),
// which takes the records one by one: the same rows with the same sums on a
// file of mixed record kinds, NVTX names of two domains and more of them
// than the stream's cache of names holds, an empty batch and a bad frame;
// and on a file with a capture window.
#include "tools/analysis/aggregate/ops_stream.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "formats/correlation_ids.h"
#include "test/unit/formats/sidecar_builder.h"
#include "tools/analysis/aggregate/ops_files.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

constexpr uint32_t kFirstNvtx = 1u << 28;  // as the shim numbers NVTX strings
constexpr uint32_t kNames = 5000;          // more than the stream's name cache holds
constexpr uint32_t kDomain = 5;

std::string row_text(const Row& r) {
  std::string out = r.name + " | " + r.group;
  for (int64_t v :
       {static_cast<int64_t>(r.kind), static_cast<int64_t>(r.gpu_kind),
        static_cast<int64_t>(r.count), static_cast<int64_t>(r.self_cpu_ns),
        static_cast<int64_t>(r.cpu_total_ns), static_cast<int64_t>(r.self_device_ns),
        static_cast<int64_t>(r.device_total_ns), static_cast<int64_t>(r.issued_device_ns),
        r.cpu_mem, r.self_cpu_mem, r.device_mem, r.self_device_mem})
    out += " " + std::to_string(v);
  return out;
}

// Pushes of every name, each around a launch or a copy, over a few frames;
// GPU records a frame late.
std::string mixed_file() {
  SidecarBuilder b;
  std::vector<std::pair<uint32_t, std::string>> names;
  for (uint32_t i = 0; i < kNames; ++i)
    names.emplace_back(kFirstNvtx + i, "op" + std::to_string(i % 4000));  // some rows shared
  b.header(test_header())
      .strings({{1, "kernel_a"}, {2, "kernel_b"}})
      .named(pb::StringEntry::NVTX, names)
      .named(pb::StringEntry::DOMAIN, {{kDomain, "mine"}});
  uint64_t t = 1'000'000;
  uint64_t correlation = 1;
  std::vector<GpuRecord> late;
  for (uint32_t frame = 0; frame < 4; ++frame) {
    std::vector<ApiRecord> calls;
    std::vector<RangeEvent> events;
    for (uint32_t i = 0; i < 2 * kNames / 4; ++i, t += 100) {
      const uint32_t n = (frame * 2 * kNames / 4 + i * 7919) % kNames;
      RangeEvent push = make_range_event(RangeOp::kPush, t, kFirstNvtx + n);
      push.domain = i % 3 == 0 ? kDomain : 0;  // a name in both domains
      events.push_back(push);
      ApiRecord call;
      if (i % 5 == 0) {
        call = make_call(ApiId::cudaMemcpyAsync, t + 10, 20);
        call.bytes = 4096;
        call.copy_kind = 1;
        late.push_back(make_copy(1, 1, 2, 4096, t + 40, 30, correlation));
      } else if (i % 11 == 0) {
        call = make_call(ApiId::cudaMalloc, t + 10, 20);
        call.bytes = 1u << 20;
        call.address = 0x7f0000000000 + i * 4096;
      } else {
        call = make_call(ApiId::cudaLaunchKernel, t + 10, 20);
        call.kernel = 1 + i % 2;
        call.grid = {128, 1, 1};
        call.block = {256, 1, 1};
        late.push_back(make_kernel(1 + i % 2, t + 50, 40, correlation));
      }
      call.correlation = correlation++;
      calls.push_back(call);
      RangeEvent pop = make_range_event(RangeOp::kPop, t + 60);
      pop.domain = push.domain;
      events.push_back(pop);
    }
    b.drain({{7, calls}, {8, {}}}, {{7, events}});  // thread 8: an empty batch
    if (frame == 1) {
      // A bad frame: a batch whose columns do not fit is skipped whole.
      pb::Frame bad;
      pb::ApiCalls& batch = *bad.add_api_calls() =
          encode_batch(9, {make_call(ApiId::cudaDeviceSynchronize, t, 5)});
      batch.mutable_duration()->Clear();
      b.frame(bad);
    }
    if (frame > 0) {
      b.gpu(late);
      late.clear();
    }
  }
  b.gpu(late);
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_mixed.gprof", b.bytes());
}

std::vector<std::string> rows_of(const std::string& path, bool stream, size_t* in_memory) {
  if (stream)
    unsetenv("GPROF_STREAM");
  else
    setenv("GPROF_STREAM", "0", 1);
  OpsFilesOptions options;
  options.steps = std::vector<std::string>{};
  options.jobs = 1;
  OpsFiles files = aggregate_ops_files({path}, options);
  unsetenv("GPROF_STREAM");
  *in_memory = files.in_memory.size();
  REQUIRE(files.files.size() == 1);
  CHECK(files.files[0].status.bad_frames == 1);
  std::vector<std::string> out;
  for (const Row& r : files.rows.finish()) out.push_back(row_text(r));
  return out;
}

TEST_CASE("the stream's batches give the in-memory rows", "[analysis][stream]") {
  const std::string path = mixed_file();
  size_t streamed_in_memory = 0, in_memory = 0;
  const std::vector<std::string> streamed = rows_of(path, true, &streamed_in_memory);
  const std::vector<std::string> reference = rows_of(path, false, &in_memory);
  CHECK(streamed_in_memory == 0);  // the stream read it, not the fallback
  // Ranges (4000 names, one of them in two domains' rows), API rows, kernels,
  // memcpy.
  CHECK(reference.size() > 4000);
  CHECK(streamed == reference);
}

// With a capture window: GPU records that come before any call of their id
// are held until the file ends, when the windows (written last here) say
// which unpaired ones were issued outside: left out, as in memory, and the
// GPU rows keep the order of their first record counted.
std::string windowed_file() {
  SidecarBuilder b;
  b.header(capture_window_header()).strings({{1, "kernel_a"}, {2, "kernel_b"}, {3, "kernel_c"}});
  // Before the calls: kernel_b outside the windows (no call) and with id 0,
  // kernel_c inside them (no call), kernel_a before its call.
  b.gpu({make_kernel(2, 25'000, 100, 100), make_kernel(3, 12'000, 100, 101),
         make_kernel(1, 15'500, 100, 2), make_kernel(2, 5'000, 100, 0)});
  std::vector<ApiRecord> calls;
  const std::pair<uint32_t, uint64_t> launches[] = {{1, 11'000}, {1, 15'000}, {2, 31'000}};
  uint64_t correlation = 1;
  for (const auto& [kernel, start] : launches) {
    ApiRecord call = make_call(ApiId::cudaLaunchKernel, start, 200);
    call.kernel = kernel;
    call.correlation = correlation++;
    calls.push_back(call);
  }
  ApiRecord copy = make_call(ApiId::cudaMemcpyAsync, 32'000, 200);
  copy.bytes = 4096;
  copy.copy_kind = 1;
  copy.correlation = correlation;
  calls.push_back(copy);
  b.drain({{7, calls}}, {});
  b.gpu({make_kernel(1, 11'500, 100, 1), make_kernel(2, 31'500, 100, 3),
         make_copy(1, 1, 2, 4096, 32'500, 50, 4)});
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::SUBSCRIBED);
  status.set_capture_windows_recorded(true);
  for (uint64_t ns : {10'000, 20'000, 30'000, 0}) status.add_capture_windows(ns);
  b.cupti(status);
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_windowed.gprof", b.bytes());
}

struct Windowed {
  std::vector<std::string> rows;
  GpuCounts gpu;
  size_t in_memory = 0;
};

Windowed windowed_rows(const std::string& path, bool stream, GroupBy group_by = GroupBy::kName) {
  if (stream)
    unsetenv("GPROF_STREAM");
  else
    setenv("GPROF_STREAM", "0", 1);
  OpsFilesOptions options;
  options.ops.group_by = group_by;
  options.steps = std::vector<std::string>{};
  options.ops.group_by = group_by;
  options.jobs = 1;
  OpsFiles files = aggregate_ops_files({path}, options);
  unsetenv("GPROF_STREAM");
  REQUIRE(files.files.size() == 1);
  Windowed out;
  out.in_memory = files.in_memory.size();
  out.gpu = files.files[0].gpu;
  for (const Row& r : files.rows.finish()) out.rows.push_back(row_text(r));
  return out;
}

// Streamed, not read in memory, with the in-memory rows and GPU counts.
void check_streamed_as_in_memory(const Windowed& streamed, const Windowed& reference) {
  CHECK(streamed.in_memory == 0);
  CHECK(streamed.gpu.records == reference.gpu.records);
  CHECK(streamed.gpu.kernels == reference.gpu.kernels);
  CHECK(streamed.gpu.copies == reference.gpu.copies);
  CHECK(streamed.gpu.unpaired == reference.gpu.unpaired);
  CHECK(streamed.gpu.outside_window == reference.gpu.outside_window);
  CHECK(streamed.rows == reference.rows);
}

TEST_CASE("a file with a capture window streams, leaving out the work issued outside it",
          "[analysis][stream]") {
  const std::string path = windowed_file();
  const Windowed streamed = windowed_rows(path, true);
  const Windowed reference = windowed_rows(path, false);
  CHECK(reference.gpu.records == 5);
  CHECK(reference.gpu.unpaired == 1);
  CHECK(reference.gpu.outside_window == 2);
  check_streamed_as_in_memory(streamed, reference);
}

// cudaMemcpyBatchAsync issues a memcpy record per copy, all with the call's
// id (api_ids.h record_per_item): its context outlives its first record.
// Contexts are collected past 65536, then past twice what was kept (here a
// range name per op, two contexts an op): the first part's calls have their
// first records when the second part's collection comes, and their second
// records after it. Taken for calls of one record, they were late, and the
// file was read in memory.
std::string batch_copies_file() {
  constexpr uint32_t kEnds[] = {0, 40'000, 90'000};  // 80K contexts, then 100K more
  SidecarBuilder b;
  std::vector<std::pair<uint32_t, std::string>> names;
  for (uint32_t i = 0; i < kEnds[2]; ++i)
    names.emplace_back(kFirstNvtx + i, "op" + std::to_string(i));
  b.header(test_header()).named(pb::StringEntry::NVTX, names);
  std::vector<GpuRecord> first[2], second;
  uint64_t t = 1'000'000;
  for (uint32_t half = 0; half < 2; ++half) {
    std::vector<ApiRecord> calls;
    std::vector<RangeEvent> events;
    for (uint32_t i = kEnds[half]; i < kEnds[half + 1]; ++i, t += 100) {
      events.push_back(make_range_event(RangeOp::kPush, t, kFirstNvtx + i));
      ApiRecord call = make_call(ApiId::cudaMemcpyBatchAsync, t + 10, 20);
      call.bytes = 8192;
      call.copy_kind = 1;
      call.correlation = i + 1;
      calls.push_back(call);
      first[half].push_back(make_copy(1, 1, 2, 4096, t + 40, 10, i + 1));
      second.push_back(make_copy(1, 1, 2, 4096, t + 60, 10, i + 1));
      events.push_back(make_range_event(RangeOp::kPop, t + 80));
    }
    b.drain({{7, calls}}, {{7, events}});
    if (half == 0) b.gpu(first[0]);
  }
  b.gpu(first[1]);
  b.gpu(second);
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_batch_copies.gprof", b.bytes());
}

TEST_CASE("a batch copy's later records stream after a context collection", "[analysis][stream]") {
  const std::string path = batch_copies_file();
  const Windowed streamed = windowed_rows(path, true);
  check_streamed_as_in_memory(streamed, windowed_rows(path, false));
  CHECK(streamed.gpu.copies == 180'000);
}

// torch.profiler inside a capture window, the GPU far behind: a record whose
// external correlation left the stream's table of mappings (the last 2^20)
// is paired once the file has ended, and only then judged as a held record
// is: counted with its call; without one, counted inside a window and left
// out outside every window.
std::string windowed_takeover_file() {
  SidecarBuilder b;
  b.header(capture_window_header()).strings({{1, "kernel_a"}, {2, "kernel_b"}, {3, "kernel_c"}});
  const uint64_t pushed = kPushedIdBase;
  std::vector<ApiRecord> calls;
  for (const auto& [kernel, start, id] :
       {std::tuple<uint32_t, uint64_t, uint64_t>{1, 11'000, 1}, {1, 13'000, 2}}) {
    ApiRecord call = make_call(ApiId::cudaLaunchKernel, start, 200);
    call.kernel = kernel;
    call.correlation = pushed + id;
    calls.push_back(call);
  }
  b.drain({{7, calls}}, {});
  // CUPTI ids 10..13: 10 and 11 the calls', 12 and 13 mapped to ids no call
  // carries; then more mappings than the table holds.
  std::vector<std::pair<uint64_t, uint64_t>> mappings = {
      {10, pushed + 1}, {11, pushed + 2}, {12, pushed + 3}, {13, pushed + 4}};
  b.external(mappings);
  for (uint64_t first = 100; first < 100 + (uint64_t{1} << 20) + 4096; first += 65536) {
    mappings.clear();
    for (uint64_t id = first; id < first + 65536; ++id) mappings.emplace_back(id, pushed + id);
    b.external(mappings);
  }
  // The late records: kernel_a of both calls (one inside, one outside the
  // windows: its call decides), kernel_b without a call inside a window,
  // kernel_c without a call outside.
  b.gpu({make_kernel(1, 11'500, 100, 10), make_kernel(1, 25'000, 100, 11),
         make_kernel(2, 12'000, 100, 12), make_kernel(3, 26'000, 100, 13)});
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  status.set_capture_windows_recorded(true);
  for (uint64_t ns : {10'000, 20'000, 30'000, 0}) status.add_capture_windows(ns);
  b.cupti(status);
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_windowed_takeover.gprof", b.bytes());
}

TEST_CASE("a windowed file whose GPU records come after their mappings left the table streams",
          "[analysis][stream]") {
  const std::string path = windowed_takeover_file();
  for (const GroupBy group_by : {GroupBy::kName, GroupBy::kThread}) {
    CAPTURE(group_by_name(group_by));
    const Windowed streamed = windowed_rows(path, true, group_by);
    const Windowed reference = windowed_rows(path, false, group_by);
    CHECK(reference.gpu.records == 3);
    CHECK(reference.gpu.unpaired == 1);
    CHECK(reference.gpu.outside_window == 1);
    check_streamed_as_in_memory(streamed, reference);
  }
}

// --group-by stream with --range: an API row is the stream of its call's
// first GPU work, and GPU work counts only when its call was walked in
// range. A call carries both in one tag (the group, and the walk's scope
// bit). Work of a graph launch on two streams keeps each record's own
// stream; work read before its call, and after its walk, counts as in memory.
std::string streams_and_ranges_file() {
  SidecarBuilder b;
  b.header(test_header())
      .strings({{1, "kernel_a"}, {2, "kernel_b"}})
      .named(pb::StringEntry::NVTX, {{kFirstNvtx, "in"}, {kFirstNvtx + 1, "out"}});
  std::vector<ApiRecord> calls;
  std::vector<RangeEvent> events;
  std::vector<GpuRecord> before, after;
  uint64_t t = 1'000'000, correlation = 1;
  for (uint32_t i = 0; i < 40; ++i, t += 1'000) {
    const bool in = i % 3 != 0;
    events.push_back(make_range_event(RangeOp::kPush, t, kFirstNvtx + (in ? 0 : 1)));
    ApiRecord call;
    if (i % 7 == 0) {
      call = make_call(ApiId::cudaGraphLaunch, t + 10, 20);
      GpuRecord a = make_kernel(1, t + 100, 40, correlation);
      GpuRecord c = make_kernel(2, t + 150, 40, correlation);
      a.stream = 9;  // the first: the API row's stream
      c.stream = 11;
      a.graph = c.graph = 3;
      after.push_back(a);
      after.push_back(c);
    } else {
      call = make_call(ApiId::cudaLaunchKernel, t + 10, 20);
      call.kernel = 1 + i % 2;
      GpuRecord k = make_kernel(1 + i % 2, t + 100, 40, correlation);
      k.stream = i % 2 == 0 ? 7 : 13;
      (i % 4 == 1 ? before : after).push_back(k);  // some read before their call
    }
    call.correlation = correlation++;
    calls.push_back(call);
    events.push_back(make_range_event(RangeOp::kPop, t + 500));
  }
  b.gpu(before);
  b.drain({{7, calls}}, {{7, events}});
  b.gpu(after);
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_streams_ranges.gprof", b.bytes());
}

// The calls are held back for their work (ops_stream.cc), or, past the
// hold, their groups found in a first pass (call_work_groups.h, forced here
// with GPROF_STREAM=two-pass): the in-memory rows either way.
TEST_CASE("--group-by stream with --range streams the in-memory rows", "[analysis][stream]") {
  const std::string path = streams_and_ranges_file();
  for (const GroupBy by : {GroupBy::kStream, GroupBy::kDevice}) {
    std::vector<std::string> rows[3];
    size_t in_memory[3] = {1, 1, 1};
    const char* const modes[3] = {"0", nullptr, "two-pass"};  // in memory, held, two passes
    for (int mode = 0; mode < 3; ++mode) {
      if (modes[mode] == nullptr)
        unsetenv("GPROF_STREAM");
      else
        setenv("GPROF_STREAM", modes[mode], 1);
      OpsFilesOptions options;
      options.ops = OpsOptions{by, {"in"}, false};
      options.jobs = 1;
      OpsFiles files = aggregate_ops_files({path}, options);
      unsetenv("GPROF_STREAM");
      in_memory[mode] = files.in_memory.size();
      for (const Row& r : files.rows.finish()) rows[mode].push_back(row_text(r));
    }
    CHECK(in_memory[1] == 0);  // streamed, not read again in memory
    CHECK(in_memory[2] == 0);
    CHECK(rows[1] == rows[0]);
    CHECK(rows[2] == rows[0]);
    if (by != GroupBy::kStream) continue;
    const auto count_of = [&](const std::string& prefix) {
      for (const std::string& r : rows[1])
        if (r.rfind(prefix, 0) == 0) return r;
      return std::string("none");
    };
    // Graph launches 7, 14, 28, 35 are in "in" (0 and 21 are not): the API
    // row on stream 9; kernel_b's records on stream 11 their own row.
    CHECK(count_of("cudaGraphLaunch | 9 ") != "none");
    CHECK(count_of("cudaGraphLaunch | 11 ") == "none");
    CHECK(count_of("kernel_b | 11 ") != "none");
  }
}

// --range naming a start/end range: a window in time over every thread
// (cpu_tree.h, kNodeInWindow), known only once its end is read, after the
// events inside it were. The stream reads the file twice: the windows and
// the push/pop ranges inside one first, then the rows.
std::string start_end_window_file() {
  SidecarBuilder b;
  b.header(test_header())
      .strings({{1, "kernel_a"}})
      .named(pb::StringEntry::NVTX, {{kFirstNvtx, "window"},
                                     {kFirstNvtx + 1, "inside"},
                                     {kFirstNvtx + 2, "straddle"},
                                     {kFirstNvtx + 3, "outer"},
                                     {kFirstNvtx + 4, "other"}});
  constexpr uint64_t kMs = 1'000'000;
  std::vector<ApiRecord> main_calls, side_calls;
  std::vector<GpuRecord> work;
  uint64_t correlation = 1;
  for (uint64_t t = 1 * kMs; t < 8 * kMs; t += kMs / 4) {  // every 0.25 ms, on both threads
    for (auto* calls : {&main_calls, &side_calls}) {
      ApiRecord call = make_call(ApiId::cudaLaunchKernel, t + (calls == &side_calls ? 50 : 0), 20);
      call.kernel = 1;
      call.correlation = correlation;
      work.push_back(make_kernel(1, t + 1000, 40, correlation++));
      calls->push_back(call);
    }
  }
  ApiRecord alloc = make_call(ApiId::cudaMalloc, 3 * kMs + 100, 20);  // inside: its memory
  alloc.bytes = 1u << 20;
  alloc.address = 0x7f0000000000;
  main_calls.push_back(alloc);
  std::sort(main_calls.begin(), main_calls.end(),
            [](const ApiRecord& a, const ApiRecord& b) { return a.start_ns < b.start_ns; });
  const auto event = [](RangeOp op, uint64_t t, uint32_t name, uint64_t id = 0) {
    return make_range_event(op, t, name == 0 ? 0 : kFirstNvtx + name - 1, id);
  };
  const std::vector<RangeEvent> main_events = {
      event(RangeOp::kPush, 1 * kMs + 10, 4),  // outer, around the window
      event(RangeOp::kStart, 2 * kMs + 10, 1, 42),
      event(RangeOp::kStart, 2 * kMs + 20, 5, 43),  // other: not named
      event(RangeOp::kPush, 3 * kMs + 10, 2),       // inside
      event(RangeOp::kPop, 4 * kMs + 10, 0),
      event(RangeOp::kPush, 4 * kMs + 510, 3),  // straddle: past the window's end
      event(RangeOp::kPop, 6 * kMs + 10, 0),
      event(RangeOp::kEnd, 6 * kMs + 20, 0, 43),
      event(RangeOp::kPop, 7 * kMs + 900, 0),
  };
  // The window ends on the other thread, in a later frame.
  const std::vector<RangeEvent> side_events = {event(RangeOp::kEnd, 5 * kMs + 10, 0, 42)};
  const size_t half = main_calls.size() / 2;
  b.drain({{7, {main_calls.begin(), main_calls.begin() + half}},
           {8, {side_calls.begin(), side_calls.begin() + side_calls.size() / 2}}},
          {{7, {main_events.begin(), main_events.begin() + 5}}});
  b.gpu(work);
  b.drain({{7, {main_calls.begin() + half, main_calls.end()}},
           {8, {side_calls.begin() + side_calls.size() / 2, side_calls.end()}}},
          {{7, {main_events.begin() + 5, main_events.end()}}, {8, side_events}});
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_start_end_window.gprof", b.bytes());
}

// The rows of `path` in memory and streamed, and how many files the stream
// left to memory.
struct BothWays {
  std::vector<std::string> in_memory, streamed;
  size_t declined = 0;
};
BothWays both_ways(const std::string& path, const OpsOptions& ops) {
  BothWays out;
  for (const bool stream : {false, true}) {
    if (stream)
      unsetenv("GPROF_STREAM");
    else
      setenv("GPROF_STREAM", "0", 1);
    OpsFilesOptions options;
    options.ops = ops;
    options.jobs = 1;
    OpsFiles files = aggregate_ops_files({path}, options);
    unsetenv("GPROF_STREAM");
    if (stream) out.declined = files.in_memory.size();
    for (const Row& r : files.rows.finish())
      (stream ? out.streamed : out.in_memory).push_back(row_text(r));
  }
  return out;
}

TEST_CASE("--range naming a start/end range streams in two passes", "[analysis][stream]") {
  const std::string path = start_end_window_file();
  const auto has = [](const std::vector<std::string>& rows, const std::string& prefix) {
    for (const std::string& r : rows)
      if (r.rfind(prefix, 0) == 0) return true;
    return false;
  };
  for (const OpsOptions& ops :
       {OpsOptions{GroupBy::kName, {"window"}, false}, OpsOptions{GroupBy::kName, {"w*"}, true},
        OpsOptions{GroupBy::kThread, {"window", "outer"}, false},
        OpsOptions{GroupBy::kStream, {"window"}, false}}) {
    const BothWays rows = both_ways(path, ops);
    CHECK(rows.declined == 0);
    CHECK(rows.streamed == rows.in_memory);
    CHECK(!rows.streamed.empty());
  }
  const BothWays named = both_ways(path, OpsOptions{GroupBy::kName, {"window"}, false});
  CHECK(has(named.streamed, "inside | "));  // within 2 to 5 ms
  CHECK(!has(named.streamed, "straddle | "));
  CHECK(!has(named.streamed, "outer | "));
  CHECK(has(named.streamed, "cudaMalloc | "));
  CHECK(has(named.streamed, "window | "));
}

}  // namespace
}  // namespace gprof::analysis

namespace gprof::analysis {
namespace {

// --group-by seq with the labels spilled past four (GPROF_STREAM=spill-rows):
// an op nested in itself (same name, same seq) while a dozen other ops
// pushed its label out of memory still counts its totals once, as in
// memory, and ops seen again after they left add up into one row.
std::string nested_ops_file() {
  SidecarBuilder b;
  b.header(test_header())
      .named(pb::StringEntry::NVTX, {{kFirstNvtx, "aten::add"}, {kFirstNvtx + 1, "aten::mul"}});
  std::vector<RangeEvent> events;
  uint64_t t = 1'000;
  const auto push = [&](uint32_t name, uint64_t seq) {
    RangeEvent e = make_range_event(RangeOp::kPush, t += 10, kFirstNvtx + name);
    e.seq = seq;
    events.push_back(e);
  };
  const auto pop = [&] { events.push_back(make_range_event(RangeOp::kPop, t += 10)); };
  push(0, 1);
  for (uint64_t seq = 10; seq < 22; ++seq) push(1, seq);
  push(0, 1);  // the outer op again, nested
  for (int i = 0; i < 14; ++i) pop();
  for (uint64_t seq = 10; seq < 22; ++seq) {  // the same ops again, side by side
    push(1, seq);
    pop();
  }
  b.drain({}, {{7, events}});
  b.footer(pb::Footer{});
  return write_temp_file("ops_stream_nested_ops.gprof", b.bytes());
}

std::vector<std::string> seq_rows(const std::string& path, const char* stream) {
  setenv("GPROF_STREAM", stream, 1);
  OpsFilesOptions options;
  options.ops.group_by = GroupBy::kSeq;
  options.jobs = 1;
  OpsFiles files = aggregate_ops_files({path}, options);
  unsetenv("GPROF_STREAM");
  CHECK(files.in_memory.empty());  // streamed, or in memory as asked
  std::vector<std::string> out;
  for (const Row& r : files.rows.finish()) out.push_back(row_text(r));
  return out;
}

TEST_CASE("the stream's rows grouped by seq, labels spilled: the in-memory rows",
          "[analysis][stream]") {
  const std::string path = nested_ops_file();
  const std::vector<std::string> reference = seq_rows(path, "0");
  REQUIRE(reference.size() == 13);  // aten::add seq 0, aten::mul seq 9..20
  // The nested one's CPU total is inside the outer's: counted once.
  CHECK(reference[0].rfind("aten::add | 0 0 0 2 ", 0) == 0);
  CHECK(seq_rows(path, "spill-rows") == reference);
}

}  // namespace
}  // namespace gprof::analysis
