// How fast a reading command reads now: bytes and records per second over
// the last few seconds, for the progress line's rate and ETA. A command's
// passes read at different speeds (diff's rows pass at ~33M records/s, its
// findings pass, which sorts as it reads, at about half), and an average
// since the start lags behind the pass being read.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>

namespace gprof::cli {

class RecentRate {
 public:
  using Clock = std::chrono::steady_clock;
  struct Rates {
    double bytes_per_s = 0;
    double records_per_s = 0;
  };

  RecentRate(Clock::time_point start, Clock::duration window) : window_(window) {
    samples_.push_back({start, 0, 0});
  }

  // The counts so far at `now`; the rates from the newest sample at least
  // the window old (or the oldest there is) to now. Zero when no time has
  // passed or the counts went back.
  Rates add(Clock::time_point now, uint64_t bytes, uint64_t records) {
    samples_.push_back({now, bytes, records});
    while (samples_.size() > 2 && now - samples_[1].time >= window_) samples_.pop_front();
    const Sample& from = samples_.front();
    const double seconds = std::chrono::duration<double>(now - from.time).count();
    if (seconds <= 0 || bytes < from.bytes || records < from.records) return {};
    return {static_cast<double>(bytes - from.bytes) / seconds,
            static_cast<double>(records - from.records) / seconds};
  }

  // The counts were taken back (a file read again another way): a new
  // window from here.
  void restart(Clock::time_point now, uint64_t bytes, uint64_t records) {
    samples_.assign(1, {now, bytes, records});
  }

 private:
  struct Sample {
    Clock::time_point time;
    uint64_t bytes;
    uint64_t records;
  };
  Clock::duration window_;
  std::deque<Sample> samples_;  // one an add(): the window's and one before
};

}  // namespace gprof::cli
