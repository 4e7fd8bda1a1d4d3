// gpuprof-gen's random numbers: the same seed gives the same file on every
// machine.
#pragma once

#include <cstdint>

namespace gprof::gen {

// xoshiro256** seeded through splitmix64: the same seed makes the same file
// on every machine (no std:: distribution, whose output is not specified).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // In [0, n).
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  // In [lo, hi].
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  // True once in `n` draws on average.
  bool one_in(uint64_t n) { return below(n) == 0; }
  // `base` varied by up to +-1/8.
  uint64_t around(uint64_t base) { return base - base / 8 + below(base / 4 + 1); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace gprof::gen
