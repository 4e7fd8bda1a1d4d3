// The memory view: the GPU's copies and sets by kind and size, with the
// bandwidth they reached (bytes / GPU time). The kinds are the GPU activity
// row names ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)"); sizes
// fall in buckets of powers of 16 from 1 KB, so that a few large copies and
// many small ones show apart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

// 0: < 1 KB, 1: 1-16 KB, 2: 16-256 KB, 3: 256 KB-4 MB, 4: 4-64 MB,
// 5: 64 MB-1 GB, 6: >= 1 GB (base 1024; a bucket holds its lower bound).
uint32_t size_bucket(uint64_t bytes);
std::string_view size_bucket_label(uint32_t bucket);

struct TransferRow {
  std::string name;
  uint32_t bucket = 0;
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t gpu_ns = 0;

  double avg_gpu_ns() const {
    return count == 0 ? 0.0 : static_cast<double>(gpu_ns) / static_cast<double>(count);
  }
  // Bytes per nanosecond are GB/s (10^9 bytes); 0 without GPU time.
  double bandwidth_gbps() const {
    return gpu_ns == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(gpu_ns);
  }
};

class TransfersVisitor : public ProfileVisitor {
 public:
  // `scope`: only work issued by calls in it (nullptr: all).
  explicit TransfersVisitor(const CallScope* scope = nullptr) : scope_(scope) {}

  void on_gpu(const GpuActivity& activity) override;
  void on_file_end(uint32_t file, const FileInfo& info) override;

  // One copy or set (row name, bytes, GPU time), for readers that pair
  // without the loader (findings/stream/issued_work.h); never scoped.
  void add_transfer(const std::string& name, uint64_t bytes, uint64_t duration_ns) {
    add(Pending{&name, bytes, duration_ns, nullptr});
  }

  // By name, then size; the visitor is empty afterwards.
  std::vector<TransferRow> finish();

  // Adds the rows of `other` (another file's, read apart: parallel_files.h);
  // `other` is empty afterwards.
  void merge(TransfersVisitor&& other);

 private:
  struct Pending {
    const std::string* name;  // owned by the loader until the file ends
    uint64_t bytes;
    uint64_t duration_ns;
    const CallRef* call;
  };
  void add(const Pending& transfer);

  const CallScope* scope_;
  std::vector<Pending> pending_;  // the current file's, until its scope is known
  std::map<std::pair<std::string, uint32_t>, TransferRow> rows_;
};

}  // namespace gprof::analysis
