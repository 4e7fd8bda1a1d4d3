// The record batches of one frame as columns of plain numbers, the form the
// reader delivers records from (formats/read/frame_delivery.h). Filled by the
// hand-written decoder (formats/read/column_decoder.h) straight from the frame's
// bytes, or, for a frame that decoder leaves to libprotobuf, from parsed
// messages (columns_from_messages). Reused from frame to frame: after the
// first frames, decoding allocates nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "formats/gprof.pb.h"

namespace gprof {

// How a field of a batch message is stored (gprof.proto), by field number.
enum class FieldType : uint8_t {
  kNone,      // no such field
  kScalar32,  // uint32, one value
  kScalar64,  // uint64, one value
  kUint32,    // repeated uint32
  kSint32,    // repeated sint32 (zig-zag)
  kUint64,    // repeated uint64
  kSint64,    // repeated sint64 (zig-zag)
};

// The highest field number of the batch messages (GpuActivities.detail).
inline constexpr uint32_t kMaxBatchField = 24;

using FieldTable = std::span<const FieldType>;

// The field tables of pb::ApiCalls, pb::GpuActivities, pb::Ranges and
// pb::ExternalCorrelations; a unit test holds them to the descriptors.
FieldTable api_calls_fields();
FieldTable gpu_activities_fields();
FieldTable ranges_fields();
FieldTable external_correlations_fields();

// An array that grows without initializing what it will overwrite.
template <typename T>
class Pool {
 public:
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  const T* data() const { return data_.get(); }
  // Room for `count` more values at end(); commit() says how many were written.
  T* reserve(size_t count) {
    if (size_ + count > capacity_) {
      const size_t capacity = std::max(size_ + count, 2 * capacity_);
      auto grown = std::make_unique_for_overwrite<T[]>(capacity);
      if (size_ > 0) std::copy(data_.get(), data_.get() + size_, grown.get());
      data_ = std::move(grown);
      capacity_ = capacity;
    }
    return data_.get() + size_;
  }
  void commit(size_t count) { size_ += count; }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Where a column's values lie in its pool.
struct ColumnRef {
  uint32_t offset = 0;
  uint32_t size = 0;
};

// One batch message: its scalars and its columns, by field number.
struct Batch {
  uint64_t scalar[3] = {};  // fields 1 and 2 (tid, base_ns; GpuActivities: base_ns)
  ColumnRef column[kMaxBatchField + 1] = {};
};

class FrameColumns {
 public:
  void clear();

  // Batches in frame order, one vector per message type.
  std::vector<Batch> api;
  std::vector<Batch> gpu;
  std::vector<Batch> ranges;
  std::vector<Batch> external;

  Pool<uint32_t> u32;
  Pool<int32_t> s32;
  Pool<uint64_t> u64;
  Pool<int64_t> s64;

  // A column's values; valid until the next clear() or decode.
  template <typename T>
  const T* values(const ColumnRef& ref) const;
};

template <>
inline const uint32_t* FrameColumns::values<uint32_t>(const ColumnRef& ref) const {
  return u32.data() + ref.offset;
}
template <>
inline const int32_t* FrameColumns::values<int32_t>(const ColumnRef& ref) const {
  return s32.data() + ref.offset;
}
template <>
inline const uint64_t* FrameColumns::values<uint64_t>(const ColumnRef& ref) const {
  return u64.data() + ref.offset;
}
template <>
inline const int64_t* FrameColumns::values<int64_t>(const ColumnRef& ref) const {
  return s64.data() + ref.offset;
}

// The batches of a frame libprotobuf parsed, as columns (the fallback path;
// also what the tests compare the hand-written decoder with).
void columns_from_messages(const pb::Frame& frame, FrameColumns& out);

}  // namespace gprof
