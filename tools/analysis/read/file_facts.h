// What every reader of one sidecar file keeps of it besides its records, in
// the FileInfo it fills: the header, with the devices merged in as they come;
// CUPTI's status; the footer; the string table (kernel names apart, every
// other kind by kind and id); the span of the records' times; the GPU records
// CUPTI could not time. Report's stream, the findings' scan, trace, export and
// the in-memory loader each kept their own copy of this, and the copies had
// begun to differ (issue 31): one copy now, which each reader holds and feeds
// from its visitor's callbacks.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/gprof.pb.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

class FileFacts {
 public:
  explicit FileFacts(FileInfo& info) : info_(&info) {}
  FileFacts(const FileFacts&) = delete;
  FileFacts& operator=(const FileFacts&) = delete;

  void header(const pb::FileHeader& header) { info_->header = header; }
  // Devices come in a record of their own, before or after the header.
  void devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices);
  void cupti(const pb::CuptiStatus& status) { info_->cupti = status; }
  void footer(const pb::Footer& footer) { info_->footer = footer; }

  // A string entry: its text for its id. An id sent again with another text
  // (the writer sends an id again only with the same text) takes the new
  // one, in place: pointers from kernel() and text() stay valid.
  void string(const pb::StringEntry& entry);
  // Whether string(entry) would change the text of an id already known: a
  // reader holding views into the old text lets go of them first.
  bool changes(const pb::StringEntry& entry) const {
    const std::string* known = entry.kind() == pb::StringEntry::KERNEL
                                   ? kernel(entry.id())
                                   : text(entry.kind(), entry.id());
    return known != nullptr && *known != entry.value();
  }
  // id 0 (none) and ids never sent: nullptr.
  const std::string* kernel(uint32_t id) const {
    if (id == 0) return nullptr;
    if (id < kIndexed) return id < kernel_by_id_.size() ? kernel_by_id_[id] : nullptr;
    auto it = kernels_.find(id);
    return it == kernels_.end() ? nullptr : &it->second;
  }
  const std::string* text(int kind, uint32_t id) const {
    if (id == 0) return nullptr;
    auto it = texts_.find(key(kind, id));
    return it == texts_.end() ? nullptr : &it->second;
  }
  // Every kernel name by the file's id.
  const std::unordered_map<uint32_t, std::string>& kernels() const { return kernels_; }

  // A record's times, into FileInfo's first_ns and last_ns.
  void seen(uint64_t start_ns, uint64_t end_ns) {
    if (!seen_any_ || start_ns < info_->first_ns) info_->first_ns = start_ns;
    if (end_ns > info_->last_ns) info_->last_ns = end_ns;
    seen_any_ = true;
  }
  // A GPU record with start = end = 0 (docs/architecture.md §3.2): CUPTI could
  // not time it. Counted here; the reader skips it, never showing it as work
  // at time 0.
  bool untimed(uint64_t start_ns, uint64_t end_ns) {
    if (start_ns != 0 || end_ns != 0) return false;
    ++info_->gpu.no_timestamp;
    return true;
  }

 private:
  static uint64_t key(int kind, uint32_t id) { return static_cast<uint64_t>(kind) << 32 | id; }
  // Kernel ids the writer hands out count up from 1: a vector finds them
  // without hashing (report's stream asks once per launch and GPU record).
  static constexpr uint32_t kIndexed = 1u << 20;

  FileInfo* info_;
  std::unordered_map<uint32_t, std::string> kernels_;  // node-based: values stay put
  std::vector<const std::string*> kernel_by_id_;       // kernels_' values, by small id
  std::unordered_map<uint64_t, std::string> texts_;    // other kinds, by key()
  bool seen_any_ = false;
};

}  // namespace gprof::analysis
