#include "formats/write/wire_encoder.h"

#include <cstdlib>
#include <cstring>

namespace gprof {

ByteBuffer::~ByteBuffer() {
  std::free(data_);
}

bool ByteBuffer::reserve(size_t extra) {
  if (size_ + extra <= capacity_) return true;
  size_t want = capacity_ ? capacity_ * 2 : 256;
  while (want < size_ + extra) want *= 2;
  void* grown = std::realloc(data_, want);
  if (!grown) {
    failed_ = true;
    return false;
  }
  data_ = static_cast<uint8_t*>(grown);
  capacity_ = want;
  return true;
}

void ByteBuffer::append(const void* data, size_t size) {
  if (size == 0 || !reserve(size)) return;
  std::memcpy(data_ + size_, data, size);
  size_ += size;
}

void put_varint(ByteBuffer& out, uint64_t value) {
  uint8_t bytes[10];
  size_t n = 0;
  while (value >= 0x80) {
    bytes[n++] = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  bytes[n++] = static_cast<uint8_t>(value);
  out.append(bytes, n);
}

void put_tag(ByteBuffer& out, uint32_t field, WireType type) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type));
}

void put_uint64(ByteBuffer& out, uint32_t field, uint64_t value) {
  if (value == 0) return;
  put_tag(out, field, WireType::kVarint);
  put_varint(out, value);
}

void put_sint64(ByteBuffer& out, uint32_t field, int64_t value) {
  if (value == 0) return;
  put_tag(out, field, WireType::kVarint);
  put_varint(out, zigzag64(value));
}

void put_bool(ByteBuffer& out, uint32_t field, bool value) {
  put_uint64(out, field, value ? 1 : 0);
}

void put_double(ByteBuffer& out, uint32_t field, double value) {
  uint64_t bits;
  static_assert(sizeof bits == sizeof value);
  std::memcpy(&bits, &value, sizeof bits);
  if (bits == 0) return;  // libprotobuf writes -0.0, which has a bit set
  put_tag(out, field, WireType::kFixed64);
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(bits >> (8 * i));
  out.append(bytes, sizeof bytes);
}

void put_bytes(ByteBuffer& out, uint32_t field, const void* data, size_t size) {
  if (size == 0) return;
  put_tag(out, field, WireType::kLengthDelimited);
  put_varint(out, size);
  out.append(data, size);
}

void put_message(ByteBuffer& out, uint32_t field, const ByteBuffer& body) {
  // A truncated nested message must not pass as a whole one.
  if (body.failed()) out.mark_failed();
  put_tag(out, field, WireType::kLengthDelimited);
  put_varint(out, body.size());
  out.append(body.data(), body.size());
}

void put_packed(ByteBuffer& out, uint32_t field, const ByteBuffer& column) {
  if (column.empty()) return;
  put_message(out, field, column);
}

}  // namespace gprof
