// gpuprof report --format md|csv|json through the real binary: the same rows
// as the table, read back with an RFC 4180 reader and nlohmann::json.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/cli_run.h"
#include "test/unit/tools/gpu_fixtures.h"

namespace gprof {
namespace {

using namespace gprof::test;
using Records = std::vector<std::vector<std::string>>;

// An RFC 4180 reader: quoted fields may hold commas, CR, LF and "" for ".
Records read_csv(const std::string& text) {
  Records records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  REQUIRE(!quoted);
  REQUIRE(field.empty());
  return records;
}

size_t header_index(const std::vector<std::string>& header, const std::string& title) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == title) return i;
  FAIL("no column " << title);
  return 0;
}

std::string golden_file() {
  const char* dir = std::getenv("GPROF_GOLDEN_DIR");
  REQUIRE(dir != nullptr);
  return std::string(dir) + "/training.gprof";
}

// The name column and # of Calls of a text table (names short enough not to
// be cut); rows are the lines between the second and third separators, and
// the name column is as wide as the separator's first run of dashes.
std::map<std::string, uint64_t> table_counts(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  int separators = 0;
  size_t name_width = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.find_first_not_of("- ") == std::string::npos) {
      ++separators;
      name_width = line.find(' ');
      continue;
    }
    if (separators != 2) continue;
    const std::string name = line.substr(0, name_width);
    std::istringstream cells(line.substr(name_width));
    std::string calls;
    for (std::string cell; cells >> cell;) calls = cell;
    out[name.substr(name.find_first_not_of(' '))] = std::stoull(calls);
  }
  return out;
}

// "57.000us" -> 57000 ns.
double table_ns(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  REQUIRE(at != std::string::npos);
  const std::string value = text.substr(at + label.size(), text.find('\n', at) - at - label.size());
  const double number = std::stod(value);
  if (value.ends_with("ms")) return number * 1e6;
  if (value.ends_with("us")) return number * 1e3;
  if (value.ends_with("ns")) return number;
  return number * 1e9;
}

TEST_CASE("gpuprof report --format csv and json hold the table's rows", "[cli_formats]") {
  const std::string file = "'" + golden_file() + "'";
  const Run table = gpuprof("report " + file);
  const Run csv = gpuprof("report --format csv " + file);
  const Run json = gpuprof("report --format json " + file);
  REQUIRE(table.status == 0);
  REQUIRE(csv.status == 0);
  REQUIRE(json.status == 0);
  CHECK(csv.err.empty());
  CHECK(json.err.empty());
  const std::map<std::string, uint64_t> expected = table_counts(table.out);
  REQUIRE(expected.size() > 5);
  const double self_cpu_total = table_ns(table.out, "Self CPU time total: ");
  const double self_cuda_total = table_ns(table.out, "Self CUDA time total: ");

  const Records records = read_csv(csv.out);
  REQUIRE(records.size() == expected.size() + 1);
  const std::vector<std::string>& header = records.front();
  CHECK(header.front() == "Name");
  CHECK(header[2] == "Self CPU (ns)");
  CHECK(header.back() == "# of Calls");
  std::map<std::string, uint64_t> csv_counts;
  double csv_self_cpu = 0;
  for (size_t i = 1; i < records.size(); ++i) {
    REQUIRE(records[i].size() == header.size());
    csv_counts[records[i].front()] = std::stoull(records[i].back());
    csv_self_cpu += std::stod(records[i][2]);
  }
  CHECK(csv_counts == expected);
  // The table prints 3 decimals of us: within half a nanosecond-thousandth.
  CHECK(std::abs(csv_self_cpu - self_cpu_total) <= 0.5);

  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["schema"] == "gprof.report");
  CHECK(doc["version"] == 1);
  CHECK(doc["view"] == "ops");
  CHECK(doc["group_by"] == "name");
  REQUIRE(doc["files"].size() == 1);
  CHECK(doc["files"][0]["host"] == "testhost");
  CHECK(doc["files"][0]["integrity"]["damaged"] == false);
  CHECK(std::abs(doc["totals"]["self_cpu_ns"].get<double>() - self_cpu_total) <= 0.5);
  CHECK(std::abs(doc["totals"]["self_cuda_ns"].get<double>() - self_cuda_total) <= 0.5);
  std::map<std::string, uint64_t> json_counts;
  double json_self_cpu = 0;
  for (const auto& row : doc["rows"]) {
    json_counts[row["name"].get<std::string>()] = row["count"].get<uint64_t>();
    json_self_cpu += row["self_cpu_ns"].get<double>();
  }
  CHECK(json_counts == expected);
  CHECK(std::abs(json_self_cpu - self_cpu_total) <= 0.5);

  // --limit and --sort as the table's.
  const nlohmann::json two =
      nlohmann::json::parse(gpuprof("report --format json --limit 2 --sort name " + file).out);
  REQUIRE(two["rows"].size() == 2);
  CHECK(two["rows"][0]["name"] <= two["rows"][1]["name"]);
}

TEST_CASE("gpuprof report --format: names with characters CSV and Markdown treat specially",
          "[cli_formats]") {
  const std::string name = "void foo<int, 2>(float*) | \"q\" `tick` a_b";
  SidecarBuilder builder;
  builder.header(test_header())
      .cupti(subscribed_status())
      .strings({{1, name}})
      .gpu({make_kernel(1, 1500, 4000, 1)})
      .calls(10, {make_launch(ApiId::cudaLaunchKernel, 1000, 200, 1, 1)});
  pb::Footer footer;
  footer.set_api_records(1);
  footer.set_gpu_records(1);
  const std::string path =
      write_temp_file("cli_formats_names.gprof", builder.footer(footer).bytes());
  const std::string file = " '" + path + "'";

  const Run csv = gpuprof("report --view kernels --format csv" + file);
  REQUIRE(csv.status == 0);
  const Records records = read_csv(csv.out);
  REQUIRE(records.size() == 2);
  CHECK(records[1].front() == name);
  CHECK(records[1][header_index(records[0], "Self CUDA (ns)")] == "4000");
  CHECK(csv.out.find("\"void foo<int, 2>(float*) | \"\"q\"\" `tick` a_b\"") != std::string::npos);

  const Run md = gpuprof("report --view kernels --format md" + file);
  REQUIRE(md.status == 0);
  CHECK(md.out.find("| ``void foo<int, 2>(float*) \\| \"q\" `tick` a_b`` | ") != std::string::npos);
  CHECK(md.out.find("\nSelf CUDA time total: 4.000us\n") != std::string::npos);

  const Run json = gpuprof("report --view kernels --format json" + file);
  REQUIRE(json.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  REQUIRE(doc["rows"].size() == 1);
  CHECK(doc["rows"][0]["name"] == name);
  CHECK(doc["rows"][0]["kind"] == "kernel");
  CHECK(doc["rows"][0]["self_cuda_ns"] == 4000);
}

TEST_CASE("gpuprof report --format: the memory and launches views export too", "[cli_formats]") {
  const std::string file = " '" + golden_file() + "'";
  // JSON: raw values (ns, bytes) under stable keys.
  const Run launches = gpuprof("report --format json --view launches --sort name" + file);
  REQUIRE(launches.status == 0);
  const auto doc = nlohmann::json::parse(launches.out);
  CHECK(doc["view"] == "launches");
  REQUIRE(!doc["rows"].empty());
  bool square = false;
  for (const auto& row : doc["rows"]) {
    if (row["name"] != "square(float*, int)") continue;
    square = true;
    CHECK(row["calls"] == 3);
    CHECK(row["gpu_avg_ns"] == 4000);
    CHECK(row["api_max_ns"] == 500);
  }
  CHECK(square);
  // CSV: a header of keys, one line per row.
  const Run memory = gpuprof("report --format csv --view memory" + file);
  REQUIRE(memory.status == 0);
  CHECK(memory.out.find("name,size,calls,bytes,gpu_total_ns,gpu_avg_ns,bandwidth_gbps\n") == 0);
  // The name has no comma: CSV leaves it unquoted.
  CHECK(memory.out.find("\nMemcpy HtoD (Pinned -> Device),256 KB-4 MB,1,1048576,1000,1000,") !=
        std::string::npos);
  // Markdown: the table and its totals line.
  const Run md = gpuprof("report --format md --view memory" + file);
  REQUIRE(md.status == 0);
  CHECK(md.out.find(
            "| Name | Size | # of Calls | Total Bytes | GPU total | GPU avg | Bandwidth |\n") == 0);
  CHECK(md.out.find("Copies and sets: 4 calls") != std::string::npos);
  CHECK(gpuprof("report --format xml" + file).status == 2);
}

}  // namespace
}  // namespace gprof
