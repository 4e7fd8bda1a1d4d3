// The plain .json output written on a thread of its own: copying a trace
// into the page cache is system time the size of the formatting's user time
// (~1.5 s a GB here), and with two cores the two overlap. At most kQueued
// pieces wait, so memory stays a few MiB; their buffers are reused, not
// allocated (and faulted in) afresh.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gprof::trace {

class BackgroundWriter {
 public:
  static constexpr size_t kQueued = 4;

  // Writes to `out` (not closed here).
  explicit BackgroundWriter(std::FILE* out);
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queues a copy of `bytes`; false once an earlier write failed (errno is
  // then set to why).
  bool write(std::string_view bytes);
  // Waits until everything is written; false, with errno set, if a write failed.
  bool finish();

 private:
  void run();
  bool failed();

  std::FILE* out_;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::condition_variable written_;
  std::deque<std::string> queue_;   // in file order
  std::vector<std::string> spare_;  // written pieces' buffers, for reuse
  bool writing_ = false;            // the thread holds a piece
  bool stopping_ = false;
  int error_ = 0;  // errno of the first failed write
  std::thread thread_;
};

}  // namespace gprof::trace
