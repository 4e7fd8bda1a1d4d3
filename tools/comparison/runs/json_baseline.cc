#include "tools/comparison/runs/json_baseline.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <utility>

namespace gprof::comparison {
namespace {

using nlohmann::json;

constexpr std::string_view kSchema = "gprof.report";
constexpr int kVersion = 1;
constexpr std::array<std::string_view, 6> kKinds = {"range",  "api",    "kernel",
                                                    "memcpy", "memset", "memory"};

// The row fields and where they go, in the report's order.
constexpr std::array<std::pair<std::string_view, Metric>, kMetricCount> kFields = {{
    {"count", Metric::kCount},
    {"self_cpu_ns", Metric::kSelfCpu},
    {"cpu_total_ns", Metric::kCpuTotal},
    {"self_cuda_ns", Metric::kSelfCuda},
    {"cuda_total_ns", Metric::kCudaTotal},
    {"cpu_mem_bytes", Metric::kCpuMem},
    {"self_cpu_mem_bytes", Metric::kSelfCpuMem},
    {"cuda_mem_bytes", Metric::kCudaMem},
    {"self_cuda_mem_bytes", Metric::kSelfCudaMem},
}};

bool known_kind(const std::string& kind) {
  for (std::string_view k : kKinds)
    if (k == kind) return true;
  return false;
}

const json* member(const json& object, std::string_view name) {
  const auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

// The row, or an error that names what is wrong with it.
std::pair<std::optional<RunRow>, std::string> parse_row(const json& row, size_t index) {
  const std::string where = fmt::format("rows[{}]", index);
  if (!row.is_object()) return {std::nullopt, where + " is not an object"};
  const json* name = member(row, "name");
  const json* kind = member(row, "kind");
  if (!name || !name->is_string()) return {std::nullopt, where + ": no string 'name'"};
  if (!kind || !kind->is_string() || !known_kind(kind->get<std::string>()))
    return {std::nullopt, where +
                              ": 'kind' is not one of range, api, kernel, memcpy, memset, "
                              "memory"};
  RunRow out;
  out.key.kind = kind->get<std::string>();
  out.key.name = name->get<std::string>();
  if (const json* group = member(row, "group")) {
    if (!group->is_string()) return {std::nullopt, where + ": 'group' is not a string"};
    out.key.group = group->get<std::string>();
  }
  for (const auto& [field, metric] : kFields) {
    // As the report writes them: whole numbers, and only memory may be
    // negative (more freed than allocated).
    const json* value = member(row, field);
    const bool bytes = field.ends_with("_bytes");
    if (!value || !value->is_number_integer() || (!bytes && !value->is_number_unsigned()))
      return {std::nullopt, fmt::format("{}: '{}' is not a whole number{}", where, field,
                                        bytes ? "" : " of 0 or more")};
    at(out.values, metric) = value->get<double>();
  }
  // A report written before API rows lost their CUDA time (they now leave it
  // to the ranges, as torch's tables do; gpu_time_ns came with that) would
  // make every API row look 100% faster: compare like with like.
  if (out.key.kind == "api" && member(row, "gpu_time_ns") == nullptr) {
    at(out.values, Metric::kSelfCuda) = 0;
    at(out.values, Metric::kCudaTotal) = 0;
  }
  return {std::move(out), ""};
}

JsonBaseline failed(std::string error) {
  JsonBaseline out;
  out.error = std::move(error);
  return out;
}

}  // namespace

bool looks_like_json(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{' || c == '[';
  }
  return false;
}

JsonBaseline parse_json_baseline(std::string_view text) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return failed("not valid JSON (truncated, or a number too large for a double?)");
  if (!doc.is_object()) return failed("not a JSON object");
  const json* schema = member(doc, "schema");
  const json* version = member(doc, "version");
  if (!schema || !schema->is_string() || schema->get<std::string>() != kSchema)
    return failed(fmt::format("not a gpuprof JSON report: its schema is {}, expected \"{}\"",
                              schema ? schema->dump() : "missing", kSchema));
  if (!version || !version->is_number_integer() || version->get<int64_t>() != kVersion)
    return failed(fmt::format("{} version {} is not supported; expected version {}", kSchema,
                              version ? version->dump() : "(missing)", kVersion));
  const json* view = member(doc, "view");
  const json* group_by = member(doc, "group_by");
  const json* limit = member(doc, "limit");
  const json* totals = member(doc, "totals");
  const json* rows = member(doc, "rows");
  if (!view || !view->is_string()) return failed("no string 'view'");
  if (!group_by || !group_by->is_string()) return failed("no string 'group_by'");
  if (!limit || !limit->is_number_unsigned()) return failed("no whole number 'limit'");
  if (!rows || !rows->is_array()) return failed("no array 'rows'");
  if (!totals || !totals->is_object()) return failed("no object 'totals'");
  const json* self_cpu = member(*totals, "self_cpu_ns");
  const json* self_cuda = member(*totals, "self_cuda_ns");
  if (!self_cpu || !self_cpu->is_number_unsigned() || !self_cuda ||
      !self_cuda->is_number_unsigned())
    return failed("'totals' lacks the whole numbers 'self_cpu_ns' and 'self_cuda_ns'");

  // A baseline must hold every row of what the runs will be cut to, or its
  // missing rows would fail the gate as new ones: refused, not warned about.
  const std::string view_name = view->get<std::string>();
  if (view_name != "ops")
    return failed(fmt::format(
        "the report shows the {} view, whose rows are only part of a run's: make baselines "
        "with the default --view ops",
        view_name));
  const uint64_t row_limit = limit->get<uint64_t>();
  if (row_limit != 0 && rows->size() >= row_limit)
    return failed(
        fmt::format("the report holds {} rows, its --limit: rows may be missing; make baselines "
                    "with --limit 0",
                    rows->size()));
  if (const json* top = member(doc, "top_level_only"); top && top->is_boolean() && top->get<bool>())
    return failed(
        "the report was made with --top-level-only, which gpuprof diff does not apply to runs");

  JsonBaseline out;
  out.group_by = group_by->get<std::string>();
  if (const json* ranges = member(doc, "ranges")) {
    if (!ranges->is_array()) return failed("'ranges' is not an array of strings");
    std::vector<std::string> patterns;
    for (const json& pattern : *ranges) {
      if (!pattern.is_string()) return failed("'ranges' is not an array of strings");
      patterns.push_back(pattern.get<std::string>());
    }
    out.ranges = std::move(patterns);
  }
  if (const json* files = member(doc, "files"); files && files->is_array()) {
    out.processes = files->size();
    uint64_t gpu_records = 0;
    bool known = !files->empty();
    for (const json& file : *files) {
      const json* gpu = file.is_object() ? member(file, "gpu") : nullptr;
      const json* records = gpu && gpu->is_object() ? member(*gpu, "records") : nullptr;
      if (!records || !records->is_number_unsigned()) {
        known = false;
        break;
      }
      gpu_records += records->get<uint64_t>();
    }
    if (known) out.gpu_records = gpu_records;
  }
  RunRows run;
  for (size_t i = 0; i < rows->size(); ++i) {
    auto [row, error] = parse_row((*rows)[i], i);
    if (!row) return failed(error);
    run.rows.push_back(std::move(*row));
  }
  run.totals = totals_of(run.rows);
  run.totals[static_cast<size_t>(TotalMetric::kSelfCpu)] = self_cpu->get<double>();
  run.totals[static_cast<size_t>(TotalMetric::kSelfCuda)] = self_cuda->get<double>();
  out.rows = std::move(run);
  return out;
}

}  // namespace gprof::comparison
