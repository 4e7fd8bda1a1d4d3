#include "tools/analysis/aggregate/group_by.h"

#include <fmt/format.h>

#include <array>

namespace gprof::analysis {
namespace {

struct Choice {
  std::string_view name;
  GroupBy group_by;
  std::string_view title;
};

constexpr std::array kChoices = {
    Choice{"name", GroupBy::kName, ""},
    Choice{"launch-config", GroupBy::kLaunchConfig, "Launch Config"},
    Choice{"stream", GroupBy::kStream, "Stream"},
    Choice{"device", GroupBy::kDevice, "Device"},
    Choice{"thread", GroupBy::kThread, "Thread"},
    Choice{"process", GroupBy::kProcess, "Process"},
    Choice{"rank", GroupBy::kRank, "Rank"},
    Choice{"input-shape", GroupBy::kInputShape, "Input Shapes"},
    Choice{"seq", GroupBy::kSeq, "Seq"},
};

}  // namespace

std::optional<GroupBy> parse_group_by(std::string_view text) {
  if (text == "launch_config") text = "launch-config";
  if (text == "input_shape") text = "input-shape";
  for (const Choice& choice : kChoices)
    if (choice.name == text) return choice.group_by;
  return std::nullopt;
}

std::string_view group_by_name(GroupBy group_by) {
  for (const Choice& choice : kChoices)
    if (choice.group_by == group_by) return choice.name;
  return {};
}

std::vector<std::string_view> group_by_names() {
  std::vector<std::string_view> names;
  for (const Choice& choice : kChoices) names.push_back(choice.name);
  return names;
}

std::string_view group_title(GroupBy group_by) {
  for (const Choice& choice : kChoices)
    if (choice.group_by == group_by) return choice.title;
  return {};
}

std::string launch_config_text(const Dim3& grid, const Dim3& block, uint32_t shared_mem) {
  return fmt::format("grid=[{}, {}, {}] block=[{}, {}, {}] smem={}", grid.x, grid.y, grid.z,
                     block.x, block.y, block.z, shared_mem);
}

std::string thread_text(uint32_t tid, const std::string* name) {
  if (name == nullptr || name->empty()) return std::to_string(tid);
  return fmt::format("{} ({})", tid, *name);
}

std::string process_text(uint32_t pid, std::string_view rank) {
  if (rank.empty()) return std::to_string(pid);
  return fmt::format("{} (rank {})", pid, rank);
}

std::string rank_text(uint32_t pid, std::string_view rank) {
  if (rank.empty()) return fmt::format("pid {}", pid);
  return std::string(rank);
}

}  // namespace gprof::analysis
