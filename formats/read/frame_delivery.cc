#include "formats/read/frame_delivery.h"

#include <array>
#include <vector>

#include "formats/api_ids.h"
#include "formats/batch_fields.h"
#include "formats/read/record_batches.h"
#include "formats/record.h"

namespace gprof {

const std::array<uint8_t, 256> kApiFieldsByRaw = [] {
  std::array<uint8_t, 256> table{};
  for (size_t id = 0; id < table.size(); ++id)
    if (const ApiInfo* info = api_info(static_cast<ApiId>(id)))
      table[id] = static_cast<uint8_t>(kKnownApi | info->fields);
  return table;
}();

void RecordVisitor::on_api_batch(const ApiBatch& batch) {
  for_each_api_record(batch, [this](const ApiRecord& r) { on_api(r); });
}
void RecordVisitor::on_gpu_batch(const GpuBatch& batch) {
  for_each_gpu_record(batch, [this](const GpuRecord& r) { on_gpu(r); });
}
void RecordVisitor::on_range_batch(const RangeBatch& batch) {
  for_each_range_event(batch, [this](const RangeEvent& e) { on_range(e); });
}

namespace {

// Field numbers of gprof.proto's batch messages (batch_fields.h).
namespace api_calls = batch_fields::api_calls;
namespace gpu_activities = batch_fields::gpu_activities;
namespace ranges = batch_fields::ranges;
namespace external_correlations = batch_fields::external_correlations;

// One column of a batch.
template <typename T>
struct Column {
  Column(const FrameColumns& columns, const Batch& batch, uint32_t field)
      : values(columns.values<T>(batch.column[field])), size(batch.column[field].size) {}
  T operator[](uint32_t i) const { return values[i]; }
  const T* values;
  uint32_t size;
};

enum class BatchCheck { kOk, kUnknownApi, kCorrupt };

BatchCheck check_api_batch(const FrameColumns& c, const Batch& b, uint32_t* unknown_api) {
  using namespace api_calls;
  const uint32_t n = b.column[kApi].size;
  if (b.column[kStartDelta].size != n || b.column[kDuration].size != n ||
      b.column[kResult].size != n || b.column[kCorrelation].size != n)
    return BatchCheck::kCorrupt;
  const Column<uint32_t> api(c, b, kApi);
  uint32_t launch = 0, stream = 0, bytes = 0, address = 0, copy_kind = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t fields = known_api_fields(api[i]);
    if (fields == 0) {
      *unknown_api = api[i];
      return BatchCheck::kUnknownApi;
    }
    launch += (fields & kFieldLaunch) != 0;
    stream += (fields & kFieldStream) != 0;
    bytes += (fields & kFieldBytes) != 0;
    address += (fields & kFieldAddress) != 0;
    copy_kind += (fields & kFieldCopyKind) != 0;
  }
  for (uint32_t field = kKernel; field <= kSharedMem; ++field)
    if (b.column[field].size != launch) return BatchCheck::kCorrupt;
  if (b.column[kStream].size != stream || b.column[kBytes].size != bytes ||
      b.column[kAddress].size != address || b.column[kCopyKind].size != copy_kind ||
      (b.column[kRuntime].size != 0 && b.column[kRuntime].size != n))
    return BatchCheck::kCorrupt;
  return BatchCheck::kOk;
}

// A column that may be empty for the whole batch: nullptr then.
template <typename T>
const T* optional_column(const FrameColumns& c, const Batch& b, uint32_t field) {
  return b.column[field].size == 0 ? nullptr : c.values<T>(b.column[field]);
}

ApiBatch api_batch(const FrameColumns& c, const Batch& b) {
  using namespace api_calls;
  ApiBatch out;
  out.tid = static_cast<uint32_t>(b.scalar[kTid]);
  out.base_ns = b.scalar[kBaseNs];
  out.size = b.column[kApi].size;
  out.api = c.values<uint32_t>(b.column[kApi]);
  out.start_delta = c.values<int64_t>(b.column[kStartDelta]);
  out.duration = c.values<uint64_t>(b.column[kDuration]);
  out.result = c.values<int32_t>(b.column[kResult]);
  out.correlation = c.values<uint64_t>(b.column[kCorrelation]);
  out.kernel = c.values<uint32_t>(b.column[kKernel]);
  out.grid_x = c.values<uint32_t>(b.column[kGridX]);
  out.grid_y = c.values<uint32_t>(b.column[kGridY]);
  out.grid_z = c.values<uint32_t>(b.column[kGridZ]);
  out.block_x = c.values<uint32_t>(b.column[kBlockX]);
  out.block_y = c.values<uint32_t>(b.column[kBlockY]);
  out.block_z = c.values<uint32_t>(b.column[kBlockZ]);
  out.shared_mem = c.values<uint32_t>(b.column[kSharedMem]);
  out.stream = c.values<uint64_t>(b.column[kStream]);
  out.bytes = c.values<uint64_t>(b.column[kBytes]);
  out.address = c.values<uint64_t>(b.column[kAddress]);
  out.copy_kind = c.values<uint32_t>(b.column[kCopyKind]);
  out.runtime = optional_column<uint32_t>(c, b, kRuntime);
  return out;
}

bool check_gpu_batch(const FrameColumns& c, const Batch& b) {
  using namespace gpu_activities;
  const uint32_t n = b.column[kKind].size;
  for (uint32_t field = kStartDelta; field <= kGraphNode; ++field)
    if (b.column[field].size != n) return false;
  const Column<uint32_t> kind(c, b, kKind);
  uint32_t launch = 0, bytes = 0, copy = 0, target = 0, detail = 0;
  for (uint32_t i = 0; i < n; ++i) {
    // A kind this build does not know makes the optional columns unsplittable.
    if (!known_gpu_kind(kind[i])) return false;
    const uint32_t fields = gpu_fields(static_cast<GpuKind>(kind[i]));
    launch += (fields & kGpuFieldLaunch) != 0;
    bytes += (fields & kGpuFieldBytes) != 0;
    copy += (fields & kGpuFieldCopy) != 0;
    target += (fields & kGpuFieldTarget) != 0;
    detail += (fields & kGpuFieldDetail) != 0;
  }
  for (uint32_t field = kKernel; field <= kRegisters; ++field)
    if (b.column[field].size != launch) return false;
  return b.column[kBytes].size == bytes && b.column[kCopyKind].size == copy &&
         b.column[kSrcKind].size == copy && b.column[kPeerDevice].size == copy &&
         b.column[kDstKind].size == target && b.column[kDetail].size == detail;
}

GpuBatch gpu_batch(const FrameColumns& c, const Batch& b) {
  using namespace gpu_activities;
  GpuBatch out;
  out.base_ns = b.scalar[kBaseNs];
  out.size = b.column[kKind].size;
  out.kind = c.values<uint32_t>(b.column[kKind]);
  out.start_delta = c.values<int64_t>(b.column[kStartDelta]);
  out.duration = c.values<uint64_t>(b.column[kDuration]);
  out.correlation = c.values<uint64_t>(b.column[kCorrelation]);
  out.device = c.values<uint32_t>(b.column[kDevice]);
  out.stream = c.values<uint32_t>(b.column[kStream]);
  out.graph = c.values<uint32_t>(b.column[kGraph]);
  out.graph_node = c.values<uint64_t>(b.column[kGraphNode]);
  out.kernel = c.values<uint32_t>(b.column[kKernel]);
  out.grid_x = c.values<uint32_t>(b.column[kGridX]);
  out.grid_y = c.values<uint32_t>(b.column[kGridY]);
  out.grid_z = c.values<uint32_t>(b.column[kGridZ]);
  out.block_x = c.values<uint32_t>(b.column[kBlockX]);
  out.block_y = c.values<uint32_t>(b.column[kBlockY]);
  out.block_z = c.values<uint32_t>(b.column[kBlockZ]);
  out.shared_mem = c.values<uint32_t>(b.column[kSharedMem]);
  out.registers = c.values<uint32_t>(b.column[kRegisters]);
  out.bytes = c.values<uint64_t>(b.column[kBytes]);
  out.copy_kind = c.values<uint32_t>(b.column[kCopyKind]);
  out.src_kind = c.values<uint32_t>(b.column[kSrcKind]);
  out.peer_device = c.values<uint32_t>(b.column[kPeerDevice]);
  out.dst_kind = c.values<uint32_t>(b.column[kDstKind]);
  out.detail = c.values<uint32_t>(b.column[kDetail]);
  return out;
}

bool check_ranges(const Batch& b) {
  using namespace ranges;
  const uint32_t n = b.column[kOp].size;
  for (uint32_t field = kTimeDelta; field <= kPayload; ++field)
    if (b.column[field].size != n) return false;
  // Optional columns: empty (no event of the batch had one) or one per event.
  return (b.column[kSeq].size == 0 || b.column[kSeq].size == n) &&
         (b.column[kOpId].size == 0 || b.column[kOpId].size == n);
}

RangeBatch range_batch(const FrameColumns& c, const Batch& b) {
  using namespace ranges;
  RangeBatch out;
  out.tid = static_cast<uint32_t>(b.scalar[kTid]);
  out.base_ns = b.scalar[kBaseNs];
  out.size = b.column[kOp].size;
  out.op = c.values<uint32_t>(b.column[kOp]);
  out.time_delta = c.values<int64_t>(b.column[kTimeDelta]);
  out.name = c.values<uint32_t>(b.column[kName]);
  out.domain = c.values<uint32_t>(b.column[kDomain]);
  out.category = c.values<uint32_t>(b.column[kCategory]);
  out.range_id = c.values<uint64_t>(b.column[kRangeId]);
  out.color = c.values<uint32_t>(b.column[kColor]);
  out.payload = c.values<uint64_t>(b.column[kPayload]);
  out.seq = optional_column<uint64_t>(c, b, kSeq);
  out.op_id = optional_column<uint64_t>(c, b, kOpId);
  return out;
}

}  // namespace

bool deliver_frame(const pb::Frame& other, const FrameColumns& columns, RecordVisitor& visitor,
                   ReadStatus& status) {
  // Checked before anything is delivered; kept for the unknown-API counts.
  // A frame holds a handful of API batches (one per thread).
  std::array<BatchCheck, 64> small_checks{};
  std::vector<BatchCheck> many_checks;
  BatchCheck* checks = small_checks.data();
  if (columns.api.size() > small_checks.size()) {
    many_checks.resize(columns.api.size());
    checks = many_checks.data();
  }
  uint32_t unknown = 0;
  for (size_t i = 0; i < columns.api.size(); ++i) {
    checks[i] = check_api_batch(columns, columns.api[i], &unknown);
    if (checks[i] == BatchCheck::kCorrupt) return false;
  }
  for (const Batch& batch : columns.gpu)
    if (!check_gpu_batch(columns, batch)) return false;
  for (const Batch& pairs : columns.external)
    if (pairs.column[external_correlations::kCorrelation].size !=
        pairs.column[external_correlations::kExternalId].size)
      return false;
  for (const Batch& batch : columns.ranges)
    if (!check_ranges(batch)) return false;

  if (other.has_header()) visitor.on_header(other.header());
  if (other.has_cupti()) visitor.on_cupti(other.cupti());
  if (other.devices_size() != 0) visitor.on_devices(other.devices());
  for (const pb::StringEntry& entry : other.strings()) visitor.on_string(entry);
  for (size_t i = 0; i < columns.api.size(); ++i) {
    const Batch& batch = columns.api[i];
    const uint64_t count = batch.column[api_calls::kApi].size;
    if (checks[i] == BatchCheck::kUnknownApi) {
      status.skipped_records += count;
      if (status.first_unknown_api == 0) status.first_unknown_api = unknown;
      continue;
    }
    visitor.on_api_batch(api_batch(columns, batch));
    status.records += count;
  }
  for (const Batch& batch : columns.ranges) {
    visitor.on_range_batch(range_batch(columns, batch));
    status.range_events += batch.column[ranges::kOp].size;
  }
  for (const Batch& batch : columns.gpu) {
    visitor.on_gpu_batch(gpu_batch(columns, batch));
    status.gpu_records += batch.column[gpu_activities::kKind].size;
  }
  for (const Batch& pairs : columns.external) {
    const Column<uint64_t> correlation(columns, pairs, external_correlations::kCorrelation),
        external_id(columns, pairs, external_correlations::kExternalId);
    for (uint32_t i = 0; i < correlation.size; ++i)
      visitor.on_external_correlation(correlation[i], external_id[i]);
  }
  if (other.has_footer()) {
    visitor.on_footer(other.footer());
    status.complete = true;
  }
  return true;
}

}  // namespace gprof
