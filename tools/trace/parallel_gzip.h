// The trace's .gz output, compressed on several threads as pigz does it: the
// bytes are cut into chunks of kChunk, each deflated on its own (by ISA-L's
// igzip, primed with
// the previous chunk's last 32 KiB, so the ratio is that of one stream) and
// ended with a sync flush, and the pieces are written in order as a single
// gzip member with the CRC-32s combined. One member, not concatenated
// members: Chrome's DecompressionStream and some trace loaders stop after
// the first. The bytes do not depend on the number of threads. Memory: about
// 2 chunks, in and out, per thread. zlib combines the CRC-32s.
#pragma once

#include <zlib.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gprof::trace {

class ParallelGzip {
 public:
  static constexpr size_t kChunk = size_t{1} << 20;
  static constexpr size_t kWindow = size_t{32} << 10;

  // Writes to `out` (not closed here). `threads` 1: compresses on the
  // caller's thread. `level`: ISA-L's, 0 to 3.
  ParallelGzip(std::FILE* out, unsigned threads, int level);
  ~ParallelGzip();
  ParallelGzip(const ParallelGzip&) = delete;
  ParallelGzip& operator=(const ParallelGzip&) = delete;

  // False once writing `out` failed (errno says why).
  bool write(std::string_view bytes);
  // The last chunk and the trailer; false when writing failed.
  bool finish();

 private:
  struct Chunk {
    std::string input;
    std::string dictionary;  // the previous chunk's last kWindow bytes
    std::string output;      // its first output_size bytes
    size_t output_size = 0;
    uLong crc = 0;
    bool last = false;
    bool started = false;
    bool done = false;
    bool failed = false;  // zlib refused (out of memory)
  };

  void submit(bool last);
  void compress(Chunk& chunk) const;
  void work();
  // Writes the finished chunks at the front; with `wait`, waits for the front.
  void drain(bool wait);
  bool put(const void* data, size_t size);

  std::FILE* out_;
  int level_;
  std::string current_;
  std::string window_;  // the last kWindow bytes of the chunks submitted
  uLong crc_ = 0;
  uint64_t total_ = 0;
  bool ok_ = true;
  bool finished_ = false;

  size_t in_flight_max_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable chunk_done_;
  std::deque<std::unique_ptr<Chunk>> chunks_;  // in output order
  // Chunks written, for the next ones: their buffers keep their size, so
  // that no chunk allocates, faults in or zero-fills fresh memory (a quarter
  // of the instructions of a .gz trace went to zeroing output buffers).
  // The caller's thread only.
  std::vector<std::unique_ptr<Chunk>> spare_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gprof::trace
