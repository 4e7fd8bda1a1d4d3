#include "tools/analysis/read/file_facts.h"

namespace gprof::analysis {

void FileFacts::devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) {
  if (!info_->header) info_->header.emplace();
  merge_devices(*info_->header, devices);
}

void FileFacts::string(const pb::StringEntry& entry) {
  if (entry.kind() != pb::StringEntry::KERNEL) {
    texts_[key(entry.kind(), entry.id())] = entry.value();
    return;
  }
  std::string& kernel = kernels_[entry.id()];
  kernel = entry.value();
  if (entry.id() < kIndexed) {
    if (entry.id() >= kernel_by_id_.size()) kernel_by_id_.resize(size_t{entry.id()} + 1);
    kernel_by_id_[entry.id()] = &kernel;
  }
}

}  // namespace gprof::analysis
