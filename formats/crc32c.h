// CRC-32C (Castagnoli), the checksum of every frame.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

// With the SSE4.2 crc32 instruction where the CPU has it (checked once, at
// the first call), else crc32c_portable.
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

// The same checksum a byte at a time from a table: any CPU. Exposed for the
// tests that compare the two.
uint32_t crc32c_portable(const void* data, size_t size, uint32_t crc = 0);

}  // namespace gprof
