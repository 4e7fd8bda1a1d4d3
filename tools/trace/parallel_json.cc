#include "tools/trace/parallel_json.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace gprof::trace {

namespace {

// An encoder's output is taken from its buffer (EventOutput::hold): never flushed.
class NoSink : public Sink {
 public:
  bool write(std::string_view /*bytes*/) override { return false; }
};

}  // namespace

ParallelJson::ParallelJson(EventOutput& out, unsigned encoders, const MakeEncoder& make)
    : out_(out), slots_(std::max(1u, encoders) * kSlotsPerEncoder) {
  for (Slot& s : slots_) s.items.reserve(kBatch);
  for (unsigned i = 0; i < std::max(1u, encoders); ++i)
    threads_.emplace_back([this, make] { run(make); });
}

ParallelJson::~ParallelJson() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ParallelJson::write(const Item& event) {
  Slot& slot = slots_[submitted_ % slots_.size()];
  slot.items.push_back(event);
  if (slot.items.size() == kBatch) submit();
}

void ParallelJson::submit() {
  const size_t index = submitted_ % slots_.size();
  {
    std::lock_guard lock(mutex_);
    todo_.push_back(index);
  }
  work_.notify_one();
  ++submitted_;
  // The next slot must be free (its batch written) before it is filled.
  if (submitted_ >= slots_.size()) wait_written(submitted_ + 1 - slots_.size());
}

void ParallelJson::wait_written(size_t batches) {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return written_ >= batches || error_; });
  if (error_) std::rethrow_exception(error_);
}

void ParallelJson::finish() {
  if (!slots_[submitted_ % slots_.size()].items.empty()) submit();
  wait_written(submitted_);
}

void ParallelJson::write_ready(std::unique_lock<std::mutex>& lock) {
  if (writing_) return;  // that encoder writes this batch too once it is next
  writing_ = true;
  while (!error_ && slots_[written_ % slots_.size()].done) {
    Slot& slot = slots_[written_ % slots_.size()];
    lock.unlock();
    std::exception_ptr error;
    try {
      out_.encoded(std::string_view(slot.text.data(), slot.text.size()), slot.events);
    } catch (...) {  // out of memory
      error = std::current_exception();
    }
    slot.text.clear();
    slot.items.clear();
    slot.events = 0;
    lock.lock();
    if (error) error_ = error;
    slot.done = false;  // free: a later batch's slot is done only once encoded
    ++written_;
    done_.notify_all();
  }
  writing_ = false;
}

void ParallelJson::run(const MakeEncoder& make) {
  NoSink sink;
  // Every batch follows the document's first events: each event after a comma.
  EventOutput out(sink, true);
  out.hold();
  const std::unique_ptr<EventJson> json = make(out);
  while (true) {
    size_t index;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return stopping_ || !todo_.empty(); });
      if (todo_.empty()) return;
      index = todo_.front();
      todo_.pop_front();
    }
    Slot& slot = slots_[index];
    const uint64_t before = out.events();
    std::exception_ptr error;
    try {
      for (const Item& e : slot.items) json->write(e);
    } catch (...) {  // out of memory: the caller's thread rethrows it
      error = std::current_exception();
    }
    // The text changes hands: the slot's emptied buffer becomes the encoder's.
    out.swap_buffer(slot.text);
    slot.events = out.events() - before;
    std::unique_lock lock(mutex_);
    if (error && !error_) error_ = error;
    slot.done = true;
    write_ready(lock);
    if (error_) done_.notify_all();
  }
}

}  // namespace gprof::trace
