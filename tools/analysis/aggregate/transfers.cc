#include "tools/analysis/aggregate/transfers.h"

#include <array>

namespace gprof::analysis {

uint32_t size_bucket(uint64_t bytes) {
  uint32_t bucket = 0;
  for (uint64_t bound = 1024; bucket < 6 && bytes >= bound; bound *= 16) ++bucket;
  return bucket;
}

std::string_view size_bucket_label(uint32_t bucket) {
  constexpr std::array<std::string_view, 7> kLabels = {
      "< 1 KB", "1-16 KB", "16-256 KB", "256 KB-4 MB", "4-64 MB", "64 MB-1 GB", ">= 1 GB"};
  return bucket < kLabels.size() ? kLabels[bucket] : kLabels.back();
}

void TransfersVisitor::on_gpu(const GpuActivity& activity) {
  const GpuKind kind = activity.record->kind;
  if (kind != GpuKind::kMemcpy && kind != GpuKind::kMemset) return;
  const Pending transfer{activity.name, activity.record->bytes, activity.duration_ns(),
                         activity.call};
  if (scope_ == nullptr || !scope_->filters())
    add(transfer);
  else
    pending_.push_back(transfer);
}

void TransfersVisitor::on_file_end(uint32_t /*file*/, const FileInfo& /*info*/) {
  for (const Pending& transfer : pending_)
    if (in_scope(scope_, transfer.call)) add(transfer);
  pending_.clear();
}

void TransfersVisitor::add(const Pending& transfer) {
  const uint32_t bucket = size_bucket(transfer.bytes);
  TransferRow& row = rows_[{*transfer.name, bucket}];
  if (row.count == 0) {
    row.name = *transfer.name;
    row.bucket = bucket;
  }
  ++row.count;
  row.bytes += transfer.bytes;
  row.gpu_ns += transfer.duration_ns;
}

void TransfersVisitor::merge(TransfersVisitor&& other) {
  for (auto& [key, from] : other.rows_) {
    TransferRow& to = rows_[key];
    to.name = from.name;
    to.bucket = from.bucket;
    to.count += from.count;
    to.bytes += from.bytes;
    to.gpu_ns += from.gpu_ns;
  }
  other.rows_.clear();
}

std::vector<TransferRow> TransfersVisitor::finish() {
  std::vector<TransferRow> out;
  out.reserve(rows_.size());
  for (auto& [key, row] : rows_) out.push_back(std::move(row));
  rows_.clear();
  return out;
}

}  // namespace gprof::analysis
