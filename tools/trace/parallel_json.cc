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
    slots_[index].done = false;
    todo_.push_back(index);
  }
  work_.notify_one();
  ++submitted_;
  // The next slot must be free before it is filled; batches already
  // encoded go out as soon as they are, so that the output keeps flowing.
  if (submitted_ - written_ == slots_.size()) write_oldest();
  while (written_ < submitted_) {
    {
      std::lock_guard lock(mutex_);
      if (!slots_[written_ % slots_.size()].done) break;
    }
    write_oldest();
  }
}

void ParallelJson::write_oldest() {
  Slot& slot = slots_[written_ % slots_.size()];
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return slot.done; });
  }
  if (slot.error) std::rethrow_exception(std::exchange(slot.error, nullptr));
  out_.encoded(std::string_view(slot.text.data(), slot.text.size()), slot.events);
  slot.text.clear();
  slot.items.clear();
  slot.events = 0;
  ++written_;
}

void ParallelJson::finish() {
  if (!slots_[submitted_ % slots_.size()].items.empty()) submit();
  while (written_ < submitted_) write_oldest();
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
    {
      std::lock_guard lock(mutex_);
      slot.error = error;
      slot.done = true;
    }
    done_.notify_all();
  }
}

}  // namespace gprof::trace
