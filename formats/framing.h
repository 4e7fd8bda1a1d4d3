// File framing shared by the in-process writer and the reader (docs/architecture.md §4.1).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

// "GPROF" then three zero bytes; followed by the format version, uint32 LE.
inline constexpr unsigned char kFileMagic[8] = {'G', 'P', 'R', 'O', 'F', 0, 0, 0};
inline constexpr size_t kFilePreambleSize = 12;
// Version 1: header/strings/api_calls/footer frames.
inline constexpr uint32_t kFormatVersion = 1;
// Each frame: uint32 LE payload length, uint32 LE crc32c(payload), payload.
inline constexpr size_t kFrameHeaderSize = 8;
// A length above this is corruption, not a frame (the writer stays far below).
inline constexpr uint32_t kMaxFramePayload = 64u << 20;

inline void store_le32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

inline uint32_t load_le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace gprof
