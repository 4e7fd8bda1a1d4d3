// The trace's events encoded as JSON on threads of their own: the caller
// hands the events out in trace order, they are encoded in batches, each
// batch by whichever encoder is free, and the batches' text goes to the
// output in the order the events came, so the bytes are those one thread
// would write, whatever the number of encoders. Sorting and merging the
// events stays on the caller's thread; the JSON, about a quarter of the
// trace's instructions, overlaps it. The text goes to the output from the
// encoders' threads too (one at a time, in order): handing it to the sink
// copies it (into the writer thread's queue, or the gzip chunks), which
// was a fifth of the caller's instructions when the caller did it.
//
// Memory: kSlotsPerEncoder batches per encoder in flight, each its events
// (kBatch Items) and their text.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tools/trace/event_json.h"
#include "tools/trace/event_output.h"
#include "tools/trace/trace_item.h"

namespace gprof::trace {

class ParallelJson {
 public:
  // Makes an encoder of one file's events that writes to `out` (each
  // encoder thread has its own: their caches of escaped names are theirs).
  using MakeEncoder = std::function<std::unique_ptr<EventJson>(EventOutput& out)>;

  static constexpr size_t kBatch = 4096;  // events
  static constexpr size_t kSlotsPerEncoder = 3;

  // `out` has had the document's first events (the metadata) written.
  ParallelJson(EventOutput& out, unsigned encoders, const MakeEncoder& make);
  // Joins the encoders; finish() writes what is pending.
  ~ParallelJson();
  ParallelJson(const ParallelJson&) = delete;
  ParallelJson& operator=(const ParallelJson&) = delete;

  void write(const Item& event);
  // Writes every event handed out so far; no write() afterwards.
  void finish();

 private:
  struct Slot {
    std::vector<Item> items;
    Buffer text;
    uint64_t events = 0;
    bool done = false;
  };
  void submit();
  // Waits until `batches` batches went to out_; rethrows an encoder's error.
  void wait_written(size_t batches);
  // Called with the lock held by an encoder whose batch is done: unless
  // another encoder is at it, writes the done batches that are next in
  // order to out_ (outside the lock).
  void write_ready(std::unique_lock<std::mutex>& lock);
  void run(const MakeEncoder& make);

  EventOutput& out_;
  std::vector<Slot> slots_;
  size_t submitted_ = 0;  // batches handed to the encoders, all time (the caller's)
  std::mutex mutex_;
  size_t written_ = 0;            // batches whose text went to out_
  bool writing_ = false;          // an encoder is writing to out_
  std::exception_ptr error_;      // the first encoder's or output's; nothing written after it
  std::condition_variable work_;  // a batch to encode, or stopping
  std::condition_variable done_;  // a batch was written (or failed)
  std::deque<size_t> todo_;       // slots to encode, oldest first
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gprof::trace
