// capture_floor: the least a profiler can add to one intercepted call on this machine, the floor
// scripts/bench compares the shim with (issue 12): two timestamp reads and one record stored in
// place into a per-thread buffer, nothing else. The record is the size of the shim's compact call
// record (collector/queues/queue_records.h, QCall: 56 bytes); the buffer is 64 KiB, the shim's
// chunk, reused, so the figure is the cache-resident floor.
//
// Usage: capture_floor [BATCHES]   (batches of 1000 records, 200 by default)
// Prints the median ns per record over batches, with the TSC (rdtsc) and with clock_gettime.
#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Record {  // the shape of QCall: header word, two times, five payload words
  uint64_t header, start, end, a, b, c, d;
};
static_assert(sizeof(Record) == 56);

constexpr size_t kChunk = 64 << 10;
constexpr int kBatch = 1000;

alignas(64) unsigned char g_chunk[kChunk];

double now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

uint64_t tsc() {
  return __rdtsc();
}

uint64_t monotonic() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

template <uint64_t (*Clock)()>
double floor_ns(int batches) {
  std::vector<double> per_record;
  size_t offset = 0;
  for (int b = 0; b < batches + 5; ++b) {
    const double t0 = now_ns();
    for (int i = 0; i < kBatch; ++i) {
      const uint64_t start = Clock();
      const uint64_t end = Clock();
      if (offset + sizeof(Record) > kChunk) offset = 0;
      auto* r = reinterpret_cast<Record*>(g_chunk + offset);
      r->header = 1;
      r->start = start;
      r->end = end;
      r->a = static_cast<uint64_t>(i);
      r->b = r->c = r->d = 0;
      offset += sizeof(Record);
      // Keeps the compiler from merging the stores across iterations.
      asm volatile("" ::: "memory");
    }
    if (b >= 5) per_record.push_back((now_ns() - t0) / kBatch);
  }
  std::nth_element(per_record.begin(), per_record.begin() + batches / 2, per_record.end());
  return per_record[static_cast<size_t>(batches / 2)];
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 200;
  if (batches <= 0) {
    std::fprintf(stderr, "usage: capture_floor [BATCHES]\n");
    return 2;
  }
  std::printf("floor_ns_tsc=%.1f floor_ns_clock_gettime=%.1f\n", floor_ns<tsc>(batches),
              floor_ns<monotonic>(batches));
  return 0;
}
