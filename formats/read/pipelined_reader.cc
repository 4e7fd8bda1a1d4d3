#include "formats/read/pipelined_reader.h"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/read/frame_decoder.h"
#include "formats/read/frame_stream.h"

namespace gprof {
namespace {

// One frame in flight, in the slot of the ring its number gives.
struct Job {
  std::vector<unsigned char> payload;
  uint32_t crc = 0;
  uint64_t end = 0;      // the file offset after the frame
  uint64_t seq = 0;      // the frame's number in the file
  bool ready = false;    // decoded (or found bad): the caller's to deliver
  bool good = false;     // checksum right and payload decoded
  FrameDecoder decoder;  // its buffers are reused by the slot's later frames
};

// What the decoders share. Frames are read from the file in turn under the
// lock (reading is a copy from the page cache, decoding is the work), so
// frame n+depth is read only once frame n was delivered and its slot freed.
class DecoderPool {
 public:
  DecoderPool(const std::string& path, size_t depth) : frames_(path, framing_), jobs_(depth) {}

  const ReadStatus& framing() const { return framing_; }
  bool opened() const { return framing_.opened; }

  // A decoder thread's loop.
  void decode() {
    try {
      for (;;) {
        Job* job = read_next();
        if (job == nullptr) return;
        job->good = crc32c(job->payload.data(), job->payload.size()) == job->crc &&
                    job->decoder.decode(job->payload.data(), job->payload.size());
        std::lock_guard lock(mutex_);
        job->ready = true;
        if (job->seq == delivered_) changed_.notify_all();
      }
    } catch (const std::exception& e) {  // std::bad_alloc
      std::lock_guard lock(mutex_);
      if (error_.empty()) error_ = std::string("unexpected error: ") + e.what();
      ended_ = true;
      changed_.notify_all();
    }
  }

  // The frame to deliver next, once decoded; nullptr after the last one
  // (or when a decoder failed: error() says why).
  Job* take() {
    std::unique_lock lock(mutex_);
    Job& job = jobs_[delivered_ % jobs_.size()];
    changed_.wait(lock, [&] {
      return !error_.empty() || (job.ready && job.seq == delivered_) ||
             (ended_ && read_ == delivered_);
    });
    if (!error_.empty() || !job.ready || job.seq != delivered_) return nullptr;
    return &job;
  }
  // The frame take() gave has been delivered: its slot is free.
  void release(Job& job) {
    std::lock_guard lock(mutex_);
    job.ready = false;
    ++delivered_;
    changed_.notify_all();
  }
  // The caller wants no more: the decoders stop at their next frame.
  void stop() {
    std::lock_guard lock(mutex_);
    ended_ = true;
    changed_.notify_all();
  }
  // After the decoders have been joined.
  void finish() { frames_.finish(); }
  const std::string& error() const { return error_; }

 private:
  Job* read_next() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ended_ || read_ < delivered_ + jobs_.size(); });
    if (ended_) return nullptr;
    Job& job = jobs_[read_ % jobs_.size()];
    if (!frames_.next(job.payload, job.crc)) {
      ended_ = true;
      changed_.notify_all();
      return nullptr;
    }
    job.end = frames_.offset();
    job.seq = read_++;
    return &job;
  }

  ReadStatus framing_;  // what reading the frames found: opened, sizes, errors
  FrameStream frames_;
  std::vector<Job> jobs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t read_ = 0;       // frames read from the file
  uint64_t delivered_ = 0;  // frames handed to the visitor
  bool ended_ = false;      // no frame will be read any more
  std::string error_;
};

}  // namespace

ReadStatus read_file_pipelined(const std::string& path, RecordVisitor& visitor, size_t decoders,
                               size_t depth) {
  if (decoders < 1) decoders = 1;
  if (depth < 1) depth = 2 * decoders + 1;
  DecoderPool pool(path, depth);
  if (!pool.opened()) return pool.framing();
  // The delivery's counts, and the progress they give (read_file's calls).
  ReadStatus status;
  ProgressTally tally(read_progress(), status);
  tally.frame(kFilePreambleSize);
  uint64_t consumed = kFilePreambleSize;
  std::vector<std::thread> threads;
  threads.reserve(decoders);
  for (size_t i = 0; i < decoders; ++i) threads.emplace_back([&pool] { pool.decode(); });
  std::exception_ptr visit_error;
  try {
    while (Job* job = pool.take()) {
      if (job->good && job->decoder.deliver_decoded(visitor, status))
        ++status.frames;
      else
        ++status.bad_frames;
      consumed = job->end;
      tally.frame(consumed);
      pool.release(*job);
      if (!visitor.wants_more()) break;
    }
  } catch (...) {
    visit_error = std::current_exception();
  }
  pool.stop();
  for (std::thread& t : threads) t.join();
  if (visit_error) std::rethrow_exception(visit_error);
  if (!pool.error().empty()) {
    ReadStatus failed;  // as read_file says it
    failed.error = pool.error();
    return failed;
  }
  pool.finish();
  const ReadStatus& framing = pool.framing();
  status.opened = framing.opened;
  status.format_version = framing.format_version;
  status.file_bytes = framing.file_bytes;
  status.ignored_bytes = framing.ignored_bytes;
  status.error = framing.error;
  tally.end(status.file_bytes);
  return status;
}

}  // namespace gprof
