#include "tools/analysis/render/sort.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace gprof::analysis {
namespace {

TEST_CASE("parse_sort_key: torch names and column titles", "[sort]") {
  CHECK(parse_sort_key("self_cpu_time_total") == SortKey::kSelfCpu);
  CHECK(parse_sort_key("Self CPU") == SortKey::kSelfCpu);
  CHECK(parse_sort_key("Self CPU %") == SortKey::kSelfCpu);
  CHECK(parse_sort_key("self-cpu") == SortKey::kSelfCpu);
  CHECK(parse_sort_key("cpu_time_total") == SortKey::kCpuTotal);
  CHECK(parse_sort_key("CPU total") == SortKey::kCpuTotal);
  CHECK(parse_sort_key("cpu_time") == SortKey::kCpuAvg);
  CHECK(parse_sort_key("cpu_time_avg") == SortKey::kCpuAvg);
  CHECK(parse_sort_key("CPU time avg") == SortKey::kCpuAvg);
  CHECK(parse_sort_key("count") == SortKey::kCount);
  CHECK(parse_sort_key("# of Calls") == SortKey::kCount);
  CHECK(parse_sort_key("name") == SortKey::kName);
  CHECK(parse_sort_key("self_cuda_time_total") == SortKey::kSelfDevice);
  CHECK(parse_sort_key("self_device_time_total") == SortKey::kSelfDevice);
  CHECK(parse_sort_key("CUDA total") == SortKey::kDeviceTotal);
  CHECK(parse_sort_key("Self CUDA Mem") == SortKey::kSelfDeviceMem);
  CHECK(parse_sort_key("Self CUDA") == SortKey::kSelfDevice);
  CHECK(parse_sort_key("Self CUDA %") == SortKey::kSelfDevice);
  CHECK(parse_sort_key("cuda_time_total") == SortKey::kDeviceTotal);
  CHECK(parse_sort_key("cuda_time") == SortKey::kDeviceAvg);
  CHECK(parse_sort_key("CUDA time avg") == SortKey::kDeviceAvg);
  CHECK_FALSE(parse_sort_key("fastest"));
  CHECK_FALSE(parse_sort_key(""));
}

TEST_CASE("sort_key_names: one canonical name per key", "[sort]") {
  const auto names = sort_key_names();
  CHECK(names.size() == 13);
  CHECK(names.front() == "self_cpu_time_total");
  for (std::string_view name : names) CHECK(sort_key_name(*parse_sort_key(name)) == name);
}

Row row(std::string name, uint64_t count, uint64_t self, uint64_t total) {
  Row r;
  r.name = std::move(name);
  r.count = count;
  r.self_cpu_ns = self;
  r.cpu_total_ns = total;
  return r;
}

std::vector<std::string> names(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(r.name);
  return out;
}

TEST_CASE("sort_rows: descending, stable on ties; names ascending", "[sort]") {
  const std::vector<Row> rows = {row("b", 1, 10, 100), row("a", 4, 30, 40), row("c", 2, 10, 90),
                                 row("d", 1, 20, 100)};
  auto sorted = rows;
  sort_rows(sorted, SortKey::kCpuTotal);
  CHECK(names(sorted) == std::vector<std::string>{"b", "d", "c", "a"});
  sorted = rows;
  sort_rows(sorted, SortKey::kSelfCpu);
  CHECK(names(sorted) == std::vector<std::string>{"a", "d", "b", "c"});
  sorted = rows;
  sort_rows(sorted, SortKey::kCount);
  CHECK(names(sorted) == std::vector<std::string>{"a", "c", "b", "d"});
  sorted = rows;
  sort_rows(sorted, SortKey::kCpuAvg);  // 100, 10, 45, 100
  CHECK(names(sorted) == std::vector<std::string>{"b", "d", "c", "a"});
  sorted = rows;
  sort_rows(sorted, SortKey::kName);
  CHECK(names(sorted) == std::vector<std::string>{"a", "b", "c", "d"});
}

}  // namespace
}  // namespace gprof::analysis
