#include "formats/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace gprof {
namespace {

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

#if defined(__x86_64__)
// Three CRCs at once, combined (Mark Adler's crc32c.c, "crc32c_hw", zlib
// licence): the crc32 instruction takes 3 cycles but starts one a cycle, so
// three independent blocks run about three times as fast as one chain. The
// register after A then B is the register after A carried over |B| zero
// bytes, xor B's CRC from 0: the carrying is a linear map, applied a byte of
// the register at a time from tables made at compile time for the two block
// sizes.

// GF(2) matrices of 32 columns: a column per bit of the register.
using Gf2Matrix = std::array<uint32_t, 32>;

constexpr uint32_t gf2_times(const Gf2Matrix& m, uint32_t v) {
  uint32_t sum = 0;
  for (size_t i = 0; v != 0; ++i, v >>= 1)
    if (v & 1) sum ^= m[i];
  return sum;
}

constexpr Gf2Matrix gf2_square(const Gf2Matrix& m) {
  Gf2Matrix out{};
  for (size_t i = 0; i < 32; ++i) out[i] = gf2_times(m, m[i]);
  return out;
}

// The register carried over `bytes` zero bytes (a power of two), by byte of
// the register: four tables of 256.
using ZeroTables = std::array<std::array<uint32_t, 256>, 4>;
constexpr ZeroTables zero_tables(size_t bytes) {
  Gf2Matrix op{};  // one zero bit
  op[0] = 0x82F63B78u;
  for (uint32_t i = 1; i < 32; ++i) op[i] = uint32_t{1} << (i - 1);
  for (int i = 0; i < 3; ++i) op = gf2_square(op);  // eight bits: one zero byte
  for (size_t b = bytes; b > 1; b >>= 1) op = gf2_square(op);
  ZeroTables t{};
  for (uint32_t n = 0; n < 256; ++n)
    for (uint32_t k = 0; k < 4; ++k) t[k][n] = gf2_times(op, n << (8 * k));
  return t;
}

constexpr size_t kLongBlock = 8192;  // bytes of each of the three; powers of two
constexpr size_t kShortBlock = 256;
constexpr ZeroTables kLongZeros = zero_tables(kLongBlock);
constexpr ZeroTables kShortZeros = zero_tables(kShortBlock);

constexpr uint32_t carry(const ZeroTables& t, uint32_t crc) {
  return t[0][crc & 0xFF] ^ t[1][(crc >> 8) & 0xFF] ^ t[2][(crc >> 16) & 0xFF] ^ t[3][crc >> 24];
}

__attribute__((target("sse4.2"))) inline uint64_t crc_word(uint64_t crc, const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return _mm_crc32_u64(crc, word);
}

// Whole blocks of 3 × `block` bytes, three at once.
__attribute__((target("sse4.2"))) uint64_t crc_blocks(uint64_t crc0, const unsigned char*& p,
                                                      size_t& size, size_t block,
                                                      const ZeroTables& zeros) {
  while (size >= 3 * block) {
    uint64_t crc1 = 0, crc2 = 0;
    for (const unsigned char* end = p + block; p < end; p += 8) {
      crc0 = crc_word(crc0, p);
      crc1 = crc_word(crc1, p + block);
      crc2 = crc_word(crc2, p + 2 * block);
    }
    crc0 = carry(zeros, static_cast<uint32_t>(crc0)) ^ crc1;
    crc0 = carry(zeros, static_cast<uint32_t>(crc0)) ^ crc2;
    p += 2 * block;
    size -= 3 * block;
  }
  return crc0;
}

// The crc32 instruction computes CRC-32C (Intel SDM, "CRC32 — Accumulate CRC32
// Value"; same polynomial 0x1EDC6F41, reflected, as the table). Eight bytes
// per instruction instead of one table lookup per byte: the reader checks
// every byte of a file. Compiled for SSE4.2 alone; called only where cpuid
// says the CPU has it, so the library still runs on any x86-64.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const unsigned char* p, size_t size,
                                                        uint32_t crc) {
  uint64_t c = ~crc;
  c = crc_blocks(c, p, size, kLongBlock, kLongZeros);
  c = crc_blocks(c, p, size, kShortBlock, kShortZeros);
  for (; size >= 8; size -= 8, p += 8) c = crc_word(c, p);
  auto c32 = static_cast<uint32_t>(c);
  for (; size > 0; --size) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

bool cpu_has_sse42() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_SSE4_2) != 0;
}
#endif

}  // namespace

uint32_t crc32c_portable(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32c(const void* data, size_t size, uint32_t crc) {
#if defined(__x86_64__)
  // cpuid once: it traps to the hypervisor in a VM.
  static const bool sse42 = cpu_has_sse42();
  if (sse42) return crc32c_sse42(static_cast<const unsigned char*>(data), size, crc);
#endif
  return crc32c_portable(data, size, crc);
}

}  // namespace gprof
