// The traceEvents array as it is written: one event per line, buffered and
// handed to the sink in large pieces, so that the document is never held in
// memory.
#pragma once

#include <cstdint>
#include <utility>

#include "tools/trace/json_text.h"
#include "tools/trace/sink.h"

namespace gprof::trace {

class EventOutput {
 public:
  static constexpr size_t kFlushBytes = 1 << 20;

  // `after_events`: the events go after others written elsewhere, each
  // after a comma (a batch encoded for the document, parallel_json.h).
  explicit EventOutput(Sink& sink, bool after_events = false)
      : sink_(sink), flush_bytes_(kFlushBytes), after_events_(after_events) {}

  // The buffer to append one event's JSON object to, after its separator.
  Buffer& begin_event();
  void end_event();
  // Text outside the array (the document's head and tail).
  void raw(std::string_view text);
  // `events` events' text, encoded by an EventOutput made with after_events.
  void encoded(std::string_view text, uint64_t events);
  // Hands the buffer to the sink; false once the sink failed.
  bool flush();
  // Keeps every event in the buffer, never flushing it: an encoder's batch
  // (parallel_json.h), taken with swap_buffer.
  void hold() { flush_bytes_ = SIZE_MAX; }
  void swap_buffer(Buffer& other) { std::swap(buffer_, other); }

  uint64_t events() const { return events_; }

 private:
  Sink& sink_;
  Buffer buffer_;
  uint64_t events_ = 0;
  size_t flush_bytes_;
  bool after_events_;
  bool ok_ = true;
};

}  // namespace gprof::trace
