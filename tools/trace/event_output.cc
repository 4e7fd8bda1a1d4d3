#include "tools/trace/event_output.h"

namespace gprof::trace {
Buffer& EventOutput::begin_event() {
  buffer_.append(std::string_view(events_ == 0 && !after_events_ ? "\n" : ",\n"));
  return buffer_;
}

void EventOutput::end_event() {
  ++events_;
  if (buffer_.size() >= flush_bytes_) flush();
}

void EventOutput::raw(std::string_view text) {
  buffer_.append(text);
}

void EventOutput::encoded(std::string_view text, uint64_t events) {
  events_ += events;
  // A batch is large: straight to the sink, after what is buffered.
  if (text.size() >= kFlushBytes / 2) {
    flush();
    if (ok_) ok_ = sink_.write(text);
    return;
  }
  buffer_.append(text);
  if (buffer_.size() >= kFlushBytes) flush();
}

bool EventOutput::flush() {
  if (ok_) ok_ = sink_.write(std::string_view(buffer_.data(), buffer_.size()));
  buffer_.clear();
  return ok_;
}

}  // namespace gprof::trace
