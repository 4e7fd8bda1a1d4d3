// Random intervals as profiles produce them, and the orders they may arrive
// in, for the tests of the streaming aggregations (seeded: failures repeat).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/gpu_busy.h"

namespace gprof::test {

using analysis::Interval;

// Work on `streams` streams from `from_ns` on: each stream runs intervals back
// to back with random gaps, so streams overlap; some intervals are empty or
// end before they start (clamped or ignored downstream), and one in about
// 500 runs for a long time.
inline std::vector<Interval> random_work(std::mt19937_64& rng, size_t count, int streams,
                                         uint64_t from_ns) {
  std::vector<uint64_t> clock(static_cast<size_t>(streams), from_ns);
  std::vector<Interval> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t& t = clock[rng() % clock.size()];
    t += rng() % 3 == 0 ? 0 : rng() % 400;  // back to back, or a gap
    uint64_t length = 1 + rng() % 300;
    if (rng() % 500 == 0) length = 20000 + rng() % 200000;
    const uint64_t kind = rng() % 50;
    if (kind == 0) {
      out.push_back({t, t});  // zero length
    } else if (kind == 1) {
      out.push_back({t + 5, t});  // end before start
    } else {
      out.push_back({t, t + length});
      t += length;
    }
  }
  return out;
}

enum class Order { kSorted, kShuffled, kBuffers, kNearly, kLateLong };

inline const char* order_name(Order order) {
  switch (order) {
    case Order::kSorted:
      return "sorted by start";
    case Order::kShuffled:
      return "any order";
    case Order::kBuffers:
      return "buffers of streams";
    case Order::kNearly:
      return "nearly sorted";
    case Order::kLateLong:
      return "long ones last";
  }
  return "?";
}

inline std::vector<Order> all_orders() {
  return {Order::kSorted, Order::kShuffled, Order::kBuffers, Order::kNearly, Order::kLateLong};
}

// `intervals` in an order records may arrive in.
inline void arrange(std::vector<Interval>& intervals, Order order, std::mt19937_64& rng) {
  const auto by_start = [](const Interval& a, const Interval& b) { return a.first < b.first; };
  switch (order) {
    case Order::kSorted:
      std::stable_sort(intervals.begin(), intervals.end(), by_start);
      break;
    case Order::kShuffled:
      std::shuffle(intervals.begin(), intervals.end(), rng);
      break;
    case Order::kBuffers: {
      // As CUPTI hands out buffers: runs of records in generation order,
      // runs taken from several places at once.
      std::vector<Interval> out;
      std::vector<size_t> at = {0, intervals.size() / 3, 2 * intervals.size() / 3};
      const std::vector<size_t> end = {at[1], at[2], intervals.size()};
      while (out.size() < intervals.size()) {
        const size_t which = rng() % at.size();
        for (size_t n = 1 + rng() % 64; n > 0 && at[which] < end[which]; --n)
          out.push_back(intervals[at[which]++]);
      }
      intervals = std::move(out);
      break;
    }
    case Order::kNearly: {
      std::stable_sort(intervals.begin(), intervals.end(), by_start);
      for (size_t i = 0; i + 1 < intervals.size(); ++i) {
        const size_t j = std::min(intervals.size() - 1, i + rng() % 40);
        std::swap(intervals[i], intervals[j]);
      }
      break;
    }
    case Order::kLateLong:
      // Sorted, but records of long work arrive after everything else (a
      // 60-second kernel's record after millions of short later ones).
      std::stable_sort(intervals.begin(), intervals.end(), by_start);
      std::stable_partition(intervals.begin(), intervals.end(), [](const Interval& i) {
        return i.second <= i.first || i.second - i.first < 20000;
      });
      break;
  }
}

// Windows to clip to: the whole range, around it, edges inside, on the
// intervals' own starts and ends, empty and reversed.
inline std::vector<Interval> random_windows(std::mt19937_64& rng,
                                            const std::vector<Interval>& intervals) {
  uint64_t low = UINT64_MAX;
  uint64_t high = 0;
  for (const auto& [start, end] : intervals) {
    low = std::min({low, start, end});
    high = std::max({high, start, end});
  }
  if (intervals.empty()) low = high = 0;
  std::vector<Interval> out = {{low, high}, {0, UINT64_MAX}, {high, low}, {low, low}};
  for (int i = 0; i < 6; ++i) {
    uint64_t a = low + rng() % (high - low + 1);
    uint64_t b = low + rng() % (high - low + 1);
    if (a > b) std::swap(a, b);
    out.push_back({a, b});
  }
  for (int i = 0; i < 6 && !intervals.empty(); ++i) {
    const Interval& x = intervals[rng() % intervals.size()];
    const Interval& y = intervals[rng() % intervals.size()];
    out.push_back({std::min(x.first, y.second), std::max(x.first, y.second)});
    out.push_back({std::min(x.second, y.first), std::max(x.second, y.first)});
  }
  return out;
}

}  // namespace gprof::test
