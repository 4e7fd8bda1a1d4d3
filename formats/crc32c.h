// CRC-32C (Castagnoli), the checksum of every frame.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

}  // namespace gprof
