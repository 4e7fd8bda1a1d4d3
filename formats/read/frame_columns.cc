#include "formats/read/frame_columns.h"

#include "formats/batch_fields.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

namespace gprof {
namespace {

using enum FieldType;

// Indexed by field number (batch_fields.h); index 0 is unused.
#define GPROF_FIELD_TYPE(Name, type) type,
constexpr FieldType kApiCalls[] = {
    kNone, GPROF_API_CALLS_HEAD(GPROF_FIELD_TYPE) GPROF_API_CALLS_COLUMNS(GPROF_FIELD_TYPE)};
constexpr FieldType kGpuActivities[] = {kNone, GPROF_GPU_ACTIVITIES_HEAD(GPROF_FIELD_TYPE)
                                                   GPROF_GPU_ACTIVITIES_COLUMNS(GPROF_FIELD_TYPE)};
constexpr FieldType kRanges[] = {
    kNone, GPROF_RANGES_HEAD(GPROF_FIELD_TYPE) GPROF_RANGES_COLUMNS(GPROF_FIELD_TYPE)};
constexpr FieldType kExternalCorrelations[] = {
    kNone, GPROF_EXTERNAL_CORRELATIONS_HEAD(GPROF_FIELD_TYPE)
               GPROF_EXTERNAL_CORRELATIONS_COLUMNS(GPROF_FIELD_TYPE)};
#undef GPROF_FIELD_TYPE

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
