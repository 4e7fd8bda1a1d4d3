#include "formats/frame_columns.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

namespace gprof {
namespace {

using enum FieldType;

// Indexed by field number (gprof.proto); index 0 is unused.
constexpr FieldType kApiCalls[] = {
    kNone,
    kScalar32,  // 1 tid
    kScalar64,  // 2 base_ns
    kUint32,    // 3 api
    kSint64,    // 4 start_delta
    kUint64,    // 5 duration
    kSint32,    // 6 result
    kUint64,    // 7 correlation
    kUint32,    // 8 kernel
    kUint32,    // 9 grid_x
    kUint32,    // 10 grid_y
    kUint32,    // 11 grid_z
    kUint32,    // 12 block_x
    kUint32,    // 13 block_y
    kUint32,    // 14 block_z
    kUint32,    // 15 shared_mem
    kUint64,    // 16 stream
    kUint64,    // 17 bytes
    kUint64,    // 18 address
    kUint32,    // 19 copy_kind
    kUint32,    // 20 runtime
};

constexpr FieldType kGpuActivities[] = {
    kNone,
    kScalar64,  // 1 base_ns
    kUint32,    // 2 kind
    kSint64,    // 3 start_delta
    kUint64,    // 4 duration
    kUint64,    // 5 correlation
    kUint32,    // 6 device
    kUint32,    // 7 stream
    kUint32,    // 8 graph
    kUint64,    // 9 graph_node
    kUint32,    // 10 kernel
    kUint32,    // 11 grid_x
    kUint32,    // 12 grid_y
    kUint32,    // 13 grid_z
    kUint32,    // 14 block_x
    kUint32,    // 15 block_y
    kUint32,    // 16 block_z
    kUint32,    // 17 shared_mem
    kUint32,    // 18 registers
    kUint64,    // 19 bytes
    kUint32,    // 20 copy_kind
    kUint32,    // 21 src_kind
    kUint32,    // 22 peer_device
    kUint32,    // 23 dst_kind
    kUint32,    // 24 detail
};

constexpr FieldType kRanges[] = {
    kNone,
    kScalar32,  // 1 tid
    kScalar64,  // 2 base_ns
    kUint32,    // 3 op
    kSint64,    // 4 time_delta
    kUint32,    // 5 name
    kUint32,    // 6 domain
    kUint32,    // 7 category
    kUint64,    // 8 range_id
    kUint32,    // 9 color
    kUint64,    // 10 payload
    kUint64,    // 11 seq
    kUint64,    // 12 op_id
};

constexpr FieldType kExternalCorrelations[] = {
    kNone,
    kUint64,  // 1 correlation
    kUint64,  // 2 external_id
};

static_assert(std::size(kGpuActivities) == kMaxBatchField + 1);

template <typename T>
void append(Pool<T>& pool, const google::protobuf::RepeatedFieldRef<T>& values, ColumnRef& ref) {
  ref.offset = static_cast<uint32_t>(pool.size());
  ref.size = static_cast<uint32_t>(values.size());
  T* out = pool.reserve(ref.size);
  for (int i = 0; i < values.size(); ++i) out[i] = values.Get(i);
  pool.commit(ref.size);
}

// Through reflection, driven by the same table as the hand-written decoder:
// a table that disagreed with the message would fail reflection's type check.
void append_batch(const google::protobuf::Message& message, FieldTable fields,
                  std::vector<Batch>& batches, FrameColumns& out) {
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  Batch& batch = batches.emplace_back();
  for (uint32_t number = 1; number < fields.size(); ++number) {
    const google::protobuf::FieldDescriptor* field =
        descriptor->FindFieldByNumber(static_cast<int>(number));
    ColumnRef& ref = batch.column[number];
    switch (fields[number]) {
      case kNone:
        break;
      case kScalar32:
        batch.scalar[number] = reflection->GetUInt32(message, field);
        break;
      case kScalar64:
        batch.scalar[number] = reflection->GetUInt64(message, field);
        break;
      case kUint32:
        append(out.u32, reflection->GetRepeatedFieldRef<uint32_t>(message, field), ref);
        break;
      case kSint32:
        append(out.s32, reflection->GetRepeatedFieldRef<int32_t>(message, field), ref);
        break;
      case kUint64:
        append(out.u64, reflection->GetRepeatedFieldRef<uint64_t>(message, field), ref);
        break;
      case kSint64:
        append(out.s64, reflection->GetRepeatedFieldRef<int64_t>(message, field), ref);
        break;
    }
  }
}

}  // namespace

FieldTable api_calls_fields() {
  return kApiCalls;
}
FieldTable gpu_activities_fields() {
  return kGpuActivities;
}
FieldTable ranges_fields() {
  return kRanges;
}
FieldTable external_correlations_fields() {
  return kExternalCorrelations;
}

void FrameColumns::clear() {
  api.clear();
  gpu.clear();
  ranges.clear();
  external.clear();
  u32.clear();
  s32.clear();
  u64.clear();
  s64.clear();
}

void columns_from_messages(const pb::Frame& frame, FrameColumns& out) {
  out.clear();
  for (const pb::ApiCalls& batch : frame.api_calls())
    append_batch(batch, api_calls_fields(), out.api, out);
  for (const pb::GpuActivities& batch : frame.gpu_activities())
    append_batch(batch, gpu_activities_fields(), out.gpu, out);
  for (const pb::Ranges& batch : frame.ranges())
    append_batch(batch, ranges_fields(), out.ranges, out);
  for (const pb::ExternalCorrelations& pairs : frame.external_correlations())
    append_batch(pairs, external_correlations_fields(), out.external, out);
}

}  // namespace gprof
