// The traceEvents array as it is written: one event per line, buffered and
// handed to the sink in large pieces, so that the document is never held in
// memory.
#pragma once

#include <cstdint>

#include "tools/trace/json_text.h"
#include "tools/trace/sink.h"

namespace gprof::trace {

class EventOutput {
 public:
  // `after_events`: the events go after others written elsewhere, each
  // after a comma (a batch encoded for the document, parallel_json.h).
  explicit EventOutput(Sink& sink, bool after_events = false)
      : sink_(sink), after_events_(after_events) {}

  // The buffer to append one event's JSON object to, after its separator.
  Buffer& begin_event();
  void end_event();
  // Text outside the array (the document's head and tail).
  void raw(std::string_view text);
  // `events` events' text, encoded by an EventOutput made with after_events.
  void encoded(std::string_view text, uint64_t events);
  // Hands the buffer to the sink; false once the sink failed.
  bool flush();

  uint64_t events() const { return events_; }

 private:
  Sink& sink_;
  Buffer buffer_;
  uint64_t events_ = 0;
  bool after_events_;
  bool ok_ = true;
};

}  // namespace gprof::trace
