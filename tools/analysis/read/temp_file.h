// An anonymous temporary file (std::tmpfile: gone when closed or when the
// process dies) for data spilled out of memory: the trace's external sort,
// the streaming throughput lines. Fixed-size records written and read back
// at byte offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace gprof::analysis {

class TempFile {
 public:
  // `purpose` completes the error messages: "cannot write a temporary file
  // for <purpose>: <reason>". Throws std::runtime_error when no file can be made.
  explicit TempFile(std::string purpose);

  // Appends `bytes` bytes; returns the offset they were written at.
  uint64_t append(const void* data, size_t bytes);
  // Reads `bytes` bytes written before at `offset`; throws when they are not there.
  void read(uint64_t offset, void* data, size_t bytes) const;
  uint64_t size() const { return size_; }

 private:
  struct Close {
    void operator()(FILE* f) const { std::fclose(f); }
  };
  std::string purpose_;
  std::unique_ptr<FILE, Close> file_;
  uint64_t size_ = 0;
};

}  // namespace gprof::analysis
