#include "tools/findings/rules/comm_compute.h"

#include <algorithm>
#include <cctype>

namespace gprof::findings {

bool is_communication(std::string_view kernel_name) {
  // An identifier that begins with "nccl": the name itself, or after a
  // demangled return type or namespace ("void ncclKernel_...").
  for (size_t at = kernel_name.find("nccl"); at != std::string_view::npos;
       at = kernel_name.find("nccl", at + 1)) {
    const char before = at == 0 ? ' ' : kernel_name[at - 1];
    if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_') return true;
  }
  return false;
}

bool CommComputeSweep::Union::add(uint64_t start_ns, uint64_t end_ns, uint64_t tag,
                                  Segment& closed) {
  if (open && start_ns <= current.end_ns) {
    current.end_ns = std::max(current.end_ns, end_ns);
    return false;
  }
  const bool closes = open;
  if (closes) closed = current;
  open = true;
  current = Segment{start_ns, end_ns, tag};
  return closes;
}

void CommComputeSweep::add(uint64_t start_ns, uint64_t end_ns, bool communication, uint64_t tag) {
  end_ns = std::max(end_ns, start_ns);
  position_ = std::max(position_, start_ns);
  // A stretch that ended before this start can grow no more: closed now, not
  // at the next work of its kind (a collective a step), so that what is
  // held does not grow with the compute in between.
  if (communication_.open && communication_.current.end_ns < start_ns) {
    communication_ns_ += communication_.current.length();
    pending_communication_.push_back(communication_.current);
    communication_.open = false;
  }
  if (compute_.open && compute_.current.end_ns < start_ns) {
    compute.push_back(compute_.current);
    pending_compute_.push_back(compute_.current);
    compute_.open = false;
  }
  Segment closed;
  if (busy_.add(start_ns, end_ns, 0, closed)) busy.push_back(closed);
  if (communication) {
    if (communication_.add(start_ns, end_ns, tag, closed)) {
      communication_ns_ += closed.length();
      pending_communication_.push_back(closed);
    }
  } else if (compute_.add(start_ns, end_ns, 0, closed)) {
    compute.push_back(closed);
    pending_compute_.push_back(closed);
  }
  settle(false);
}

void CommComputeSweep::finish() {
  if (busy_.open) busy.push_back(busy_.current);
  if (compute_.open) {
    compute.push_back(compute_.current);
    pending_compute_.push_back(compute_.current);
  }
  if (communication_.open) {
    communication_ns_ += communication_.current.length();
    pending_communication_.push_back(communication_.current);
  }
  busy_.open = compute_.open = communication_.open = false;
  settle(true);
}

// A closed stretch of communication is settled once no compute that could
// overlap it can come: every later compute stretch starts at or after the
// open one's start, or after the latest start seen.
void CommComputeSweep::settle(bool last) {
  const uint64_t compute_from =
      last ? UINT64_MAX : (compute_.open ? compute_.current.start_ns : position_);
  while (!pending_communication_.empty() && pending_communication_.front().end_ns <= compute_from) {
    const Segment c = pending_communication_.front();
    pending_communication_.pop_front();
    while (!pending_compute_.empty() && pending_compute_.front().end_ns <= c.start_ns)
      pending_compute_.pop_front();
    uint64_t at = c.start_ns;
    for (const Segment& k : pending_compute_) {
      if (k.start_ns >= c.end_ns || at >= c.end_ns) break;
      if (k.start_ns > at) exposed.push_back(Segment{at, k.start_ns, c.tag});
      at = std::max(at, k.end_ns);
    }
    if (at < c.end_ns) exposed.push_back(Segment{at, c.end_ns, c.tag});
  }
  // Compute that ends before any communication still to settle is of no
  // more use.
  const uint64_t communication_from = !pending_communication_.empty()
                                          ? pending_communication_.front().start_ns
                                      : communication_.open ? communication_.current.start_ns
                                                            : position_;
  if (last) {
    pending_compute_.clear();
    return;
  }
  while (!pending_compute_.empty() && pending_compute_.front().end_ns <= communication_from)
    pending_compute_.pop_front();
}

}  // namespace gprof::findings
