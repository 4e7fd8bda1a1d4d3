// The launches view: API, queue and GPU time per call that issued GPU work.
#include "tools/analysis/aggregate/launches.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "tools/analysis/render/launch_table.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

TEST_CASE("summarize: avg, median, min, max of signed samples", "[launches]") {
  std::vector<int64_t> odd = {30, -10, 20};
  const Summary a = summarize(odd);
  CHECK(a.avg == Approx(40.0 / 3));
  CHECK(a.median == 20);
  CHECK(a.min == -10);
  CHECK(a.max == 30);
  std::vector<int64_t> even = {400, 100, 200, -50};
  const Summary b = summarize(even);
  CHECK(b.avg == 162.5);
  CHECK(b.median == 150);  // mean of the two middle values
  CHECK(b.min == -50);
  CHECK(b.max == 400);
  std::vector<int64_t> none;
  const Summary c = summarize(none);
  CHECK(c.avg == 0);
  CHECK(c.max == 0);
}

TEST_CASE("LaunchesVisitor: medians of more samples than it keeps in memory, as summarize's",
          "[launches]") {
  // 3 samples a launch, 16 bytes each, 4 MiB in memory: 100K launches of two keys
  // spill to a temporary file, and the figures must be summarize()'s to the bit.
  LaunchesVisitor launches;
  std::vector<int64_t> api[2], queue[2], gpu[2];
  uint64_t x = 12345;
  for (int i = 0; i < 100001; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // any spread of values
    const int key = (x >> 60) % 2;
    const uint64_t start = 1'000'000 + (x >> 40) % 5000;
    const uint64_t end = start + (x >> 20) % 3000;
    const uint64_t first = end - 500 + (x >> 8) % 1000;  // sometimes before the call's end
    const uint64_t last = first + (x >> 30) % 7000;
    launches.add_launch(key == 0 ? "kernel a" : "copy b", start, end, first, last);
    api[key].push_back(static_cast<int64_t>(end - start));
    queue[key].push_back(static_cast<int64_t>(first) - static_cast<int64_t>(end));
    gpu[key].push_back(static_cast<int64_t>(last - first));
  }
  std::vector<LaunchRow> rows = launches.finish();
  REQUIRE(rows.size() == 2);
  for (LaunchRow& row : rows) {
    const int key = row.name == "kernel a" ? 0 : 1;
    CHECK(row.count == api[key].size());
    for (auto [got, samples] : {std::pair{row.api, &api[key]}, std::pair{row.queue, &queue[key]},
                                std::pair{row.gpu, &gpu[key]}}) {
      const Summary want = summarize(*samples);
      CHECK(got.avg == want.avg);
      CHECK(got.median == want.median);
      CHECK(got.min == want.min);
      CHECK(got.max == want.max);
    }
  }
  CHECK(launches.finish().empty());  // emptied
}

// square launched 4 times, one copy, one graph launch of 3 kernels.
//   API [start, end)   GPU           API  queue  GPU
//   1000-1100          1300+1000     100    200  1000
//   3000-3300          3250+3000     300    -50  3000
//   7000-7200          7600+2000     200    400  2000
//   10000-10400        10500+4000    400    100  4000
std::string write_launches_file() {
  SidecarBuilder file;
  file.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, "_Z6squarePfi"}, {2, "vector_add"}})
      .calls(5, {make_launch(ApiId::cudaLaunchKernel, 1000, 100, 1, 1),
                 make_launch(ApiId::cudaLaunchKernel, 3000, 300, 1, 2),
                 make_launch(ApiId::cudaLaunchKernel, 7000, 200, 1, 3),
                 make_launch(ApiId::cudaLaunchKernel, 10000, 400, 1, 4),
                 make_correlated(ApiId::cudaMemcpyAsync, 20000, 1000, 5),
                 make_correlated(ApiId::cudaGraphLaunch, 30000, 100, 6),
                 make_correlated(ApiId::cudaStreamSynchronize, 40000, 100, 7)})
      .gpu({make_kernel(1, 1300, 1000, 1), make_kernel(1, 3250, 3000, 2),
            make_kernel(1, 7600, 2000, 3), make_kernel(1, 10500, 4000, 4),
            make_copy(kCopyHtoD, kMemPinned, kMemDevice, 1 << 20, 20500, 700, 5),
            // Graph nodes: first start 31000, last end 31000 + 900.
            make_kernel(2, 31400, 500, 6), make_kernel(1, 31000, 300, 6),
            make_kernel(2, 31200, 100, 6),
            // A sync pairs, but a call that only waited issued no GPU work.
            make_sync(kSyncStream, 40000, 90, 7)});
  return write_temp_file("launches.gprof", file.bytes());
}

std::vector<LaunchRow> load_launches() {
  LaunchesVisitor visitor;
  load_files({write_launches_file()}, visitor);
  return visitor.finish();
}

const LaunchRow& find(const std::vector<LaunchRow>& rows, const std::string& name) {
  auto it =
      std::find_if(rows.begin(), rows.end(), [&](const LaunchRow& r) { return r.name == name; });
  INFO(name);
  REQUIRE(it != rows.end());
  return *it;
}

void check(const Summary& s, double avg, double median, int64_t min, int64_t max) {
  CHECK(s.avg == Approx(avg));
  CHECK(s.median == Approx(median));
  CHECK(s.min == min);
  CHECK(s.max == max);
}

TEST_CASE("launches: API, queue and GPU time per key", "[launches]") {
  const std::vector<LaunchRow> rows = load_launches();
  REQUIRE(rows.size() == 3);
  const LaunchRow& square = find(rows, "square(float*, int)");
  CHECK(square.count == 4);
  check(square.api, 250, 250, 100, 400);
  check(square.queue, 162.5, 150, -50, 400);
  check(square.gpu, 2500, 2500, 1000, 4000);
  const LaunchRow& copy = find(rows, "Memcpy HtoD (Pinned -> Device)");
  CHECK(copy.count == 1);
  check(copy.api, 1000, 1000, 1000, 1000);
  check(copy.queue, -500, -500, -500, -500);  // started before cudaMemcpyAsync returned
  check(copy.gpu, 700, 700, 700, 700);
  // Several GPU records: keyed by the API, GPU time spans them all.
  const LaunchRow& graph = find(rows, "cudaGraphLaunch");
  CHECK(graph.count == 1);
  check(graph.api, 100, 100, 100, 100);
  check(graph.queue, 900, 900, 900, 900);
  check(graph.gpu, 900, 900, 900, 900);
}

TEST_CASE("launches: sort keys are the column titles", "[launches]") {
  using Time = LaunchSortKey::Time;
  using Stat = LaunchSortKey::Stat;
  CHECK(parse_launch_sort_key("API avg") == LaunchSortKey{Time::kApi, Stat::kAvg});
  CHECK(parse_launch_sort_key("queue_median") == LaunchSortKey{Time::kQueue, Stat::kMedian});
  CHECK(parse_launch_sort_key("GPU Max") == LaunchSortKey{Time::kGpu, Stat::kMax});
  CHECK(parse_launch_sort_key("gpu-min") == LaunchSortKey{Time::kGpu, Stat::kMin});
  CHECK(parse_launch_sort_key("# of Calls") == LaunchSortKey{Time::kNone, Stat::kCount});
  CHECK(parse_launch_sort_key("count") == LaunchSortKey{Time::kNone, Stat::kCount});
  CHECK(parse_launch_sort_key("Name") == LaunchSortKey{Time::kNone, Stat::kName});
  CHECK_FALSE(parse_launch_sort_key("cpu_time_total"));
  CHECK_FALSE(parse_launch_sort_key("gpu"));
  const auto names = launch_sort_key_names();
  CHECK(names.size() == 14);
  for (const std::string& name : names) CHECK(parse_launch_sort_key(name));
}

std::vector<std::string> names(const std::vector<LaunchRow>& rows) {
  std::vector<std::string> out;
  for (const LaunchRow& r : rows) out.push_back(r.name);
  return out;
}

TEST_CASE("launches: sorting", "[launches]") {
  const std::vector<LaunchRow> rows = load_launches();
  auto sorted = rows;
  sort_launch_rows(sorted, *parse_launch_sort_key("queue_min"));  // -50, -500, 900
  CHECK(names(sorted) == std::vector<std::string>{"cudaGraphLaunch", "square(float*, int)",
                                                  "Memcpy HtoD (Pinned -> Device)"});
  sorted = rows;
  sort_launch_rows(sorted, *parse_launch_sort_key("GPU max"));  // 4000, 700, 900
  CHECK(names(sorted) == std::vector<std::string>{"square(float*, int)", "cudaGraphLaunch",
                                                  "Memcpy HtoD (Pinned -> Device)"});
  sorted = rows;
  sort_launch_rows(sorted, *parse_launch_sort_key("name"));
  CHECK(names(sorted) == std::vector<std::string>{"Memcpy HtoD (Pinned -> Device)",
                                                  "cudaGraphLaunch", "square(float*, int)"});
}

TEST_CASE("launches: the table", "[launches]") {
  LaunchTableOptions options;
  options.sort = parse_launch_sort_key("count");
  CHECK(
      render_launch_table(load_launches(), options) ==
      R"(----------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                              Name    # of Calls       API avg    API median       API min       API max     Queue avg  Queue median     Queue min     Queue max       GPU avg    GPU median       GPU min       GPU max  
----------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
               square(float*, int)             4       0.250us       0.250us       0.100us       0.400us       0.163us       0.150us      -0.050us       0.400us       2.500us       2.500us       1.000us       4.000us  
    Memcpy HtoD (Pinned -> Device)             1       1.000us       1.000us       1.000us       1.000us      -0.500us      -0.500us      -0.500us      -0.500us       0.700us       0.700us       0.700us       0.700us  
                   cudaGraphLaunch             1       0.100us       0.100us       0.100us       0.100us       0.900us       0.900us       0.900us       0.900us       0.900us       0.900us       0.900us       0.900us  
----------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
)");
  options.row_limit = 1;
  options.time_unit = TimeUnit::kNanoseconds;
  const std::string one = render_launch_table(load_launches(), options);
  CHECK(one.find(
            "4         250ns         250ns         100ns         400ns         162ns         150ns"
            "         -50ns         400ns        2500ns") != std::string::npos);
  CHECK(one.find("Memcpy") == std::string::npos);
  CHECK(render_launch_table({}, options).empty());
}

}  // namespace
}  // namespace gprof::analysis
