// The fields of gprof.proto's record batches (ApiCalls, GpuActivities,
// Ranges, ExternalCorrelations), in field-number order from 1: one table
// that the shim's encoder (its column order, frame_encoder.h), the tools'
// decoder (field numbers, frame_delivery.cc) and the column layout (field
// types, frame_columns.cc) are generated from. A test checks it against the
// .proto's descriptor (frame_decoder_test.cc).
//
// X(Name, type): `type` is a FieldType (frame_columns.h) name, which the
// encoder, without libprotobuf, ignores. *_HEAD are the batch's single
// values; *_COLUMNS its packed columns, in the encoder's column order.
#pragma once

#define GPROF_API_CALLS_HEAD(X) X(Tid, kScalar32) X(BaseNs, kScalar64)
#define GPROF_API_CALLS_COLUMNS(X) \
  X(Api, kUint32)                  \
  X(StartDelta, kSint64)           \
  X(Duration, kUint64)             \
  X(Result, kSint32)               \
  X(Correlation, kUint64)          \
  X(Kernel, kUint32)               \
  X(GridX, kUint32)                \
  X(GridY, kUint32)                \
  X(GridZ, kUint32)                \
  X(BlockX, kUint32)               \
  X(BlockY, kUint32)               \
  X(BlockZ, kUint32)               \
  X(SharedMem, kUint32)            \
  X(Stream, kUint64)               \
  X(Bytes, kUint64)                \
  X(Address, kUint64)              \
  X(CopyKind, kUint32)             \
  X(Runtime, kUint32)

#define GPROF_GPU_ACTIVITIES_HEAD(X) X(BaseNs, kScalar64)
#define GPROF_GPU_ACTIVITIES_COLUMNS(X) \
  X(Kind, kUint32)                      \
  X(StartDelta, kSint64)                \
  X(Duration, kUint64)                  \
  X(Correlation, kUint64)               \
  X(Device, kUint32)                    \
  X(Stream, kUint32)                    \
  X(Graph, kUint32)                     \
  X(GraphNode, kUint64)                 \
  X(Kernel, kUint32)                    \
  X(GridX, kUint32)                     \
  X(GridY, kUint32)                     \
  X(GridZ, kUint32)                     \
  X(BlockX, kUint32)                    \
  X(BlockY, kUint32)                    \
  X(BlockZ, kUint32)                    \
  X(SharedMem, kUint32)                 \
  X(Registers, kUint32)                 \
  X(Bytes, kUint64)                     \
  X(CopyKind, kUint32)                  \
  X(SrcKind, kUint32)                   \
  X(PeerDevice, kUint32)                \
  X(DstKind, kUint32)                   \
  X(Detail, kUint32)

#define GPROF_RANGES_HEAD(X) X(Tid, kScalar32) X(BaseNs, kScalar64)
#define GPROF_RANGES_COLUMNS(X) \
  X(Op, kUint32)                \
  X(TimeDelta, kSint64)         \
  X(Name, kUint32)              \
  X(Domain, kUint32)            \
  X(Category, kUint32)          \
  X(RangeId, kUint64)           \
  X(Color, kUint32)             \
  X(Payload, kUint64)           \
  X(Seq, kUint64)               \
  X(OpId, kUint64)

#define GPROF_EXTERNAL_CORRELATIONS_HEAD(X)
#define GPROF_EXTERNAL_CORRELATIONS_COLUMNS(X) X(Correlation, kUint64) X(ExternalId, kUint64)

// The field numbers, per batch: api_calls::kTid == 1, ...; kFirstColumn is
// the field number of the batch's first packed column.
#define GPROF_BATCH_FIELD_ENUM(Name, type) k##Name,
#define GPROF_BATCH_HEAD_COUNT(Name, type) +1
#define GPROF_BATCH_FIELDS(batch, HEAD, COLUMNS)                                                  \
  namespace batch {                                                                               \
  enum : uint32_t { kNoField = 0, HEAD(GPROF_BATCH_FIELD_ENUM) COLUMNS(GPROF_BATCH_FIELD_ENUM) }; \
  inline constexpr uint32_t kFirstColumn = 1 HEAD(GPROF_BATCH_HEAD_COUNT);                        \
  }

#include <cstdint>

namespace gprof::batch_fields {
GPROF_BATCH_FIELDS(api_calls, GPROF_API_CALLS_HEAD, GPROF_API_CALLS_COLUMNS)
GPROF_BATCH_FIELDS(gpu_activities, GPROF_GPU_ACTIVITIES_HEAD, GPROF_GPU_ACTIVITIES_COLUMNS)
GPROF_BATCH_FIELDS(ranges, GPROF_RANGES_HEAD, GPROF_RANGES_COLUMNS)
GPROF_BATCH_FIELDS(external_correlations, GPROF_EXTERNAL_CORRELATIONS_HEAD,
                   GPROF_EXTERNAL_CORRELATIONS_COLUMNS)
}  // namespace gprof::batch_fields
