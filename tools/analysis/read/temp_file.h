// An anonymous temporary file (gone when closed or when the process dies)
// for data spilled out of memory: the external sorts of trace, export and the
// findings, the streaming throughput lines and busy intervals. Fixed-size
// records written and read back at byte offsets.
//
// It is made in $TMPDIR (else /tmp), as sort(1) and compilers do: at 100M
// records the spills reach gigabytes, and /tmp is a RAM-backed tmpfs on many
// distributions, which would defeat reading in bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gprof::analysis {

class TempFile {
 public:
  // `purpose` completes the error messages: "cannot write a temporary file
  // for <purpose> in <dir>: <reason>". Throws std::runtime_error when no file
  // can be made.
  explicit TempFile(std::string purpose);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Appends `bytes` bytes; returns the offset they were written at.
  uint64_t append(const void* data, size_t bytes);
  // Reads `bytes` bytes written before at `offset`; throws when they are not there.
  void read(uint64_t offset, void* data, size_t bytes) const;
  uint64_t size() const { return size_; }

  // Where temporary files go: $TMPDIR when set and not empty, else /tmp.
  static std::string directory();

 private:
  std::string purpose_;
  std::string directory_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace gprof::analysis
