// A minimal protobuf wire-format writer for use inside the host process,
// where libprotobuf must not be linked (docs/architecture.md §2.5). Runs on the writer
// thread only: it may allocate, but it never throws; an allocation failure
// latches `failed()` and the frame is dropped and counted by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gprof {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer();
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  void append(const void* data, size_t size);
  void push(uint8_t byte) { append(&byte, 1); }
  void clear() { size_ = 0; }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool failed() const { return failed_; }
  void clear_failure() { failed_ = false; }
  void mark_failed() { failed_ = true; }

 private:
  bool reserve(size_t extra);

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool failed_ = false;
};

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

inline uint64_t zigzag64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

void put_varint(ByteBuffer& out, uint64_t value);

// Field writers. Scalars equal to their proto3 default are omitted, as
// libprotobuf does, so both encoders produce the same bytes.
void put_tag(ByteBuffer& out, uint32_t field, WireType type);
void put_uint64(ByteBuffer& out, uint32_t field, uint64_t value);
void put_sint64(ByteBuffer& out, uint32_t field, int64_t value);
void put_bool(ByteBuffer& out, uint32_t field, bool value);
// A `double` field (fixed64, little-endian IEEE 754); +0.0 is omitted.
void put_double(ByteBuffer& out, uint32_t field, double value);
void put_bytes(ByteBuffer& out, uint32_t field, const void* data, size_t size);
inline void put_string(ByteBuffer& out, uint32_t field, std::string_view s) {
  put_bytes(out, field, s.data(), s.size());
}
// A nested message or a packed repeated column already encoded in `body`;
// an empty packed column is omitted, an empty message is written (presence).
void put_message(ByteBuffer& out, uint32_t field, const ByteBuffer& body);
void put_packed(ByteBuffer& out, uint32_t field, const ByteBuffer& column);

}  // namespace gprof
