#include "tools/trace/background_writer.h"

#include <cerrno>

namespace gprof::trace {

BackgroundWriter::BackgroundWriter(std::FILE* out) : out_(out), thread_([this] { run(); }) {}

BackgroundWriter::~BackgroundWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  thread_.join();
}

bool BackgroundWriter::failed() {
  if (error_ == 0) return false;
  errno = error_;
  return true;
}

bool BackgroundWriter::write(std::string_view bytes) {
  std::unique_lock lock(mutex_);
  written_.wait(lock, [&] { return queue_.size() < kQueued || error_ != 0; });
  if (failed()) return false;
  std::string piece;
  if (!spare_.empty()) {
    piece.swap(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  piece.assign(bytes);  // outside the lock: the writing thread may go on
  lock.lock();
  queue_.push_back(std::move(piece));
  lock.unlock();
  queued_.notify_one();
  return true;
}

bool BackgroundWriter::finish() {
  std::unique_lock lock(mutex_);
  written_.wait(lock, [&] { return (queue_.empty() && !writing_) || error_ != 0; });
  return !failed();
}

void BackgroundWriter::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, everything written
    std::string piece = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    lock.unlock();
    const bool ok = error_ != 0 || std::fwrite(piece.data(), 1, piece.size(), out_) == piece.size();
    const int error = errno;
    lock.lock();
    writing_ = false;
    if (!ok && error_ == 0) error_ = error != 0 ? error : EIO;
    piece.clear();
    spare_.push_back(std::move(piece));
    written_.notify_all();
  }
}

}  // namespace gprof::trace
