#include "tools/trace/process_names.h"

#include <fmt/format.h>

#include <string_view>

namespace gprof::trace {
namespace {

std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string program_name(const pb::FileHeader& header) {
  if (header.argv_size() > 0) {
    const std::string_view first = base_name(header.argv(0));
    if (first.starts_with("python") && header.argv_size() > 1 && !header.argv(1).starts_with("-"))
      return std::string(base_name(header.argv(1)));
    if (!first.empty()) return std::string(first);
  }
  if (!header.exe().empty()) return std::string(base_name(header.exe()));
  return "process";
}

std::string process_title(const pb::FileHeader& header, bool renumbered) {
  std::string title = program_name(header);
  if (renumbered) title += fmt::format(" (pid {})", header.pid());
  return header.rank().empty() ? title : fmt::format("rank {}: {}", header.rank(), title);
}

std::string gpu_title(const pb::FileHeader& header, uint32_t device) {
  for (const pb::Device& d : header.devices())
    if (d.ordinal() == device && !d.name().empty())
      return fmt::format("GPU {}: {} (pid {})", device, d.name(), header.pid());
  return fmt::format("GPU {} (pid {})", device, header.pid());
}

std::string thread_title(uint32_t tid, uint32_t pid, const std::map<uint32_t, std::string>& names) {
  auto it = names.find(tid);
  if (it != names.end()) return it->second;
  return tid == pid ? "main thread" : fmt::format("thread {}", tid);
}

std::string command_line(const pb::FileHeader& header) {
  std::string out;
  for (const std::string& arg : header.argv()) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

}  // namespace gprof::trace
