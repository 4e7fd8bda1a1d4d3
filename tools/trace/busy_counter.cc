#include "tools/trace/busy_counter.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace gprof::trace {
namespace {

using Interval = std::pair<int64_t, int64_t>;  // [start, end), relative ns

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

// Emits a device's samples, one bucket at a time, from its work intervals in
// time order.
class Buckets {
 public:
  Buckets(FileEvents& file, uint32_t track, int64_t bucket, int64_t to_relative,
          const std::optional<TimeWindow>& window)
      : file_(file), track_(track), bucket_(bucket), to_relative_(to_relative), window_(window) {}

  void add(Interval work) {
    const int64_t from = std::max(work.first, reached_);  // the union: nothing counted twice
    for (int64_t t = from; t < work.second;) {
      const int64_t b = floor_div(t, bucket_);
      if (!started_ || b != current_) move_to(b);
      if (t == b * bucket_ && work.second >= (b + 1) * bucket_) {
        skip_busy_buckets(b, floor_div(work.second, bucket_) - 1);
        t = (current_ + 1) * bucket_;
        continue;
      }
      const int64_t end = std::min(work.second, (b + 1) * bucket_);
      covered_ += end - t;
      t = end;
    }
    reached_ = std::max(reached_, work.second);
  }

  // The last busy bucket, then idle from the next one on.
  void finish() {
    if (!started_) return;
    sample(current_, percent());
    sample(current_ + 1, 0);
  }

 private:
  // Closes the current bucket; a gap of idle buckets reads 0.
  void move_to(int64_t b) {
    if (started_) {
      sample(current_, percent());
      if (b > current_ + 1) sample(current_ + 1, 0);
    }
    started_ = true;
    current_ = b;
    covered_ = 0;
  }

  // Buckets first..last are all busy: their samples would repeat 100%, so
  // one at the first (and one where the window starts) stands for them all,
  // and a long kernel costs no more than a short one.
  void skip_busy_buckets(int64_t first, int64_t last) {
    if (last > first) {
      sample(first, 100.0);
      if (window_) {
        const int64_t opens = floor_div(window_->begin_ns, bucket_);
        if (opens > first && opens <= last) sample(opens, 100.0);
      }
      current_ = last;
    }
    covered_ = bucket_;
  }

  double percent() const {
    return 100.0 * static_cast<double>(covered_) / static_cast<double>(bucket_);
  }

  void sample(int64_t b, double value) {
    if (value == last_) return;
    const int64_t start = b * bucket_;
    if (window_ && !window_->overlaps(start, start + bucket_)) return;
    last_ = value;
    file_.add_counter(track_, static_cast<uint64_t>(start - to_relative_), Counter::kGpuBusy,
                      value);
  }

  FileEvents& file_;
  uint32_t track_;
  int64_t bucket_;
  int64_t to_relative_;
  const std::optional<TimeWindow>& window_;
  bool started_ = false;
  int64_t current_ = 0;
  int64_t covered_ = 0;
  int64_t reached_ = INT64_MIN;
  double last_ = -1;
};

}  // namespace

void add_busy_counters(FileEvents& file, uint64_t bucket_ns, int64_t to_relative,
                       const std::optional<TimeWindow>& window) {
  std::map<uint32_t, std::vector<Interval>> devices;
  for (const Event& e : file.events) {
    if (e.kind != EventKind::kGpu || e.dur_ns == 0) continue;
    const int64_t start = static_cast<int64_t>(e.start_ns) + to_relative;
    devices[file.tracks[e.track].device].emplace_back(start,
                                                      start + static_cast<int64_t>(e.dur_ns));
  }
  for (auto& [device, work] : devices) {
    std::sort(work.begin(), work.end());
    Buckets buckets(file, file.track(true, device, 0), static_cast<int64_t>(bucket_ns), to_relative,
                    window);
    for (const Interval& w : work) buckets.add(w);
    buckets.finish();
  }
}

}  // namespace gprof::trace
