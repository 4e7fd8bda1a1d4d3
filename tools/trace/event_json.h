// One file's events as trace-event JSON objects, spelled as PyTorch's
// (kineto's) traces spell them, so that Perfetto and Chrome DevTools show
// them as users of torch.profiler know them (docs/trace.md lists them all).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/read/interner.h"
#include "tools/trace/event_output.h"
#include "tools/trace/trace_item.h"

namespace gprof::trace {

class JsonCursor;

// Where a track is in the trace.
struct Place {
  uint32_t pid;
  uint32_t tid;
};

class EventJson {
 public:
  // `places`: per track of the file; flow and async ids of the file are
  // `flow_base` + its GPU work index and `async_base` + its range index.
  EventJson(EventOutput& out, const analysis::Interner& strings, const std::vector<Place>& places,
            int64_t to_relative, uint64_t flow_base, uint64_t async_base);

  // The event, or (sub > 0) one end of a flow.
  void write(const Item& event);

 private:
  struct PlaceText {
    char text[48];  // ,"pid":P,"tid":T,"ts": is 40 bytes at most (two 32-bit numbers)
    uint8_t size;
  };
  struct ApiText {
    std::string head;  // the event up to its name, included
  };
  // Names as JSON strings, escaped once per id however many events use them.
  const std::string& escaped(uint32_t id);
  const ApiText& api_text(const ApiInfo& info);
  void place(JsonCursor& c, uint32_t track, uint64_t time_ns);
  void call(const Item& e);
  void gpu(const Item& e);
  void range(const Item& e);
  void counter(const Item& e);
  void flow(bool start, uint64_t id, uint32_t track, uint64_t time_ns);

  EventOutput& out_;
  const analysis::Interner& strings_;
  int64_t to_relative_;
  uint64_t flow_base_;
  uint64_t async_base_;
  // By string id. A deque: escaped() hands out references that must outlive
  // the next call, which may grow it (a range's name, then its domain).
  std::deque<std::optional<std::string>> escaped_;
  std::vector<std::optional<ApiText>> apis_;  // by ApiId
  std::vector<PlaceText> place_texts_;        // by track
};

// A metadata event: {"ph":"M","name":NAME,...,"args":{KEY:value}}.
void write_metadata(EventOutput& out, std::string_view name, Place place, std::string_view text);
void write_sort_index(EventOutput& out, Place place, uint32_t index);

}  // namespace gprof::trace
