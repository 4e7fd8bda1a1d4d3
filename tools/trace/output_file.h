// The trace file: never left half-written. Bytes go to OUT.tmp-PID next to
// OUT, which commit() renames to OUT once everything is written; without a
// commit (an error, an unreadable input) the temporary file is removed.
// "OUT.gz" is gzip-compressed as it is written (parallel_gzip.h); "-" is stdout.
// An OUT that exists and is not a regular file (/dev/stdout, a FIFO, a
// device) is written directly: a rename would replace it. A symbolic link
// is followed: the file it names is replaced, the link stays.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "tools/trace/background_writer.h"
#include "tools/trace/parallel_gzip.h"
#include "tools/trace/sink.h"

namespace gprof::trace {

class OutputFile : public Sink {
 public:
  // nullptr with `error` set when the file cannot be created. `threads`:
  // how many compress a .gz output; more than one also writes plain JSON on
  // a thread of its own (background_writer.h).
  static std::unique_ptr<OutputFile> open(const std::string& path, std::string& error,
                                          unsigned threads = 1);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() override;

  bool write(std::string_view bytes) override;
  // Flushes, closes and renames; false with `error` set when any of it (or an
  // earlier write) failed, the temporary file then removed.
  bool commit(std::string& error);

 private:
  OutputFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  bool close();
  void discard();
  // What the bytes are written to, for messages.
  std::string written_name() const;

  std::string path_;  // what commit() renames onto (a symbolic link resolved)
  std::string temp_;  // empty when written directly (stdout, not a regular file)
  std::FILE* plain_ = nullptr;
  std::unique_ptr<ParallelGzip> gz_;              // writes into plain_
  std::unique_ptr<BackgroundWriter> background_;  // or this does (plain JSON, threads > 1)
  bool failed_ = false;
  std::string error_;  // the first failure
};

}  // namespace gprof::trace
