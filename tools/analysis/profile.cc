#include "tools/analysis/profile.h"

#include <algorithm>
#include <unordered_map>

namespace gprof::analysis {
namespace {

// Adapts the reader's per-file callbacks: keeps the file's kernel names
// (string ids are per file) and hands resolved calls on.
class FileAdapter : public RecordVisitor {
 public:
  FileAdapter(uint32_t file, FileInfo& info, ProfileVisitor& out)
      : file_(file), info_(info), out_(out) {}

  void on_header(const pb::FileHeader& header) override {
    info_.header = header;
    out_.on_header(file_, header);
  }

  void on_string(const pb::StringEntry& entry) override {
    if (entry.kind() == pb::StringEntry::KERNEL) kernels_[entry.id()] = entry.value();
    out_.on_string(file_, entry);
  }

  void on_api(const ApiRecord& record) override {
    const ApiInfo* info = api_info(record.api);
    if (info == nullptr) return;  // the reader skips unknown APIs; be safe anyway
    const std::string* kernel = nullptr;
    if ((info->fields & kFieldLaunch) && record.kernel != 0) {
      auto it = kernels_.find(record.kernel);
      if (it != kernels_.end()) kernel = &it->second;
    }
    out_.on_api(ApiCall{file_, record, *info, kernel});
  }

  void on_footer(const pb::Footer& footer) override {
    info_.footer = footer;
    out_.on_footer(file_, footer);
  }

 private:
  uint32_t file_;
  FileInfo& info_;
  ProfileVisitor& out_;
  std::unordered_map<uint32_t, std::string> kernels_;
};

}  // namespace

std::vector<FileInfo> load_files(const std::vector<std::string>& paths, ProfileVisitor& visitor) {
  std::vector<FileInfo> files;
  files.reserve(paths.size());
  for (const std::string& path : paths) {
    const auto index = static_cast<uint32_t>(files.size());
    FileInfo& info = files.emplace_back();
    info.path = path;
    visitor.on_file_begin(index, path);
    FileAdapter adapter(index, info, visitor);
    info.status = read_file(path, adapter);
    visitor.on_file_end(index, info);
  }
  return files;
}

std::vector<std::pair<std::string, uint64_t>> total_losses(const std::vector<FileInfo>& files) {
  std::vector<std::pair<std::string, uint64_t>> totals;
  for (const FileInfo& file : files) {
    if (!file.footer) continue;
    for (const pb::Loss& loss : file.footer->losses()) {
      if (loss.count() == 0) continue;
      auto it = std::find_if(totals.begin(), totals.end(),
                             [&](const auto& entry) { return entry.first == loss.reason(); });
      if (it == totals.end())
        totals.emplace_back(loss.reason(), loss.count());
      else
        it->second += loss.count();
    }
  }
  return totals;
}

std::string format_losses(const std::vector<std::pair<std::string, uint64_t>>& losses) {
  std::string out;
  for (const auto& [reason, count] : losses) {
    if (!out.empty()) out += ' ';
    out += (reason.empty() ? std::string("unknown") : reason) + "=" + std::to_string(count);
  }
  return out;
}

}  // namespace gprof::analysis
