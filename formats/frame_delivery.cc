#include "formats/frame_delivery.h"

#include <array>
#include <vector>

#include "formats/api_ids.h"
#include "formats/batch_fields.h"
#include "formats/record.h"

namespace gprof {
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

// The optional columns of each ApiId (api_ids.h), by raw id: a lookup per
// record instead of a call. kKnown marks ids this build knows.
constexpr uint8_t kKnown = 0x80;
static_assert((kFieldLaunch | kFieldStream | kFieldBytes | kFieldAddress | kFieldCopyKind) <
              kKnown);
const std::array<uint8_t, 256> kApiFields = [] {
  std::array<uint8_t, 256> table{};
  for (size_t id = 0; id < table.size(); ++id)
    if (const ApiInfo* info = api_info(static_cast<ApiId>(id)))
      table[id] = static_cast<uint8_t>(kKnown | info->fields);
  return table;
}();

uint32_t known_api_fields(uint32_t raw) {
  return raw < kApiFields.size() ? kApiFields[raw] : 0;
}

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

// Splits a checked batch back into records, in call order.
void deliver_api_batch(const FrameColumns& c, const Batch& b, RecordVisitor& visitor) {
  using namespace api_calls;
  const Column<uint32_t> api(c, b, kApi), kernel(c, b, kKernel), grid_x(c, b, kGridX),
      grid_y(c, b, kGridY), grid_z(c, b, kGridZ), block_x(c, b, kBlockX), block_y(c, b, kBlockY),
      block_z(c, b, kBlockZ), shared_mem(c, b, kSharedMem), copy_kind(c, b, kCopyKind),
      runtime(c, b, kRuntime);
  const Column<int64_t> start_delta(c, b, kStartDelta);
  const Column<uint64_t> duration(c, b, kDuration), correlation(c, b, kCorrelation),
      stream(c, b, kStream), bytes(c, b, kBytes), address(c, b, kAddress);
  const Column<int32_t> result(c, b, kResult);
  const auto tid = static_cast<uint32_t>(b.scalar[kTid]);
  uint32_t at_launch = 0, at_stream = 0, at_bytes = 0, at_address = 0, at_copy_kind = 0;
  uint64_t start = b.scalar[kBaseNs];
  for (uint32_t i = 0; i < api.size; ++i) {
    ApiRecord r{};
    r.kind = RecordKind::kApi;
    r.api = static_cast<ApiId>(api[i]);
    r.tid = tid;
    start += static_cast<uint64_t>(start_delta[i]);  // wraps like the writer's subtraction
    r.start_ns = start;
    r.end_ns = start + duration[i];
    r.result = result[i];
    r.correlation = correlation[i];
    const uint32_t fields = known_api_fields(api[i]);
    if (fields & kFieldLaunch) {
      const uint32_t k = at_launch++;
      r.kernel = kernel[k];
      r.grid = {grid_x[k], grid_y[k], grid_z[k]};
      r.block = {block_x[k], block_y[k], block_z[k]};
      r.shared_mem = shared_mem[k];
    }
    if (fields & kFieldStream) r.stream = stream[at_stream++];
    if (fields & kFieldBytes) r.bytes = bytes[at_bytes++];
    if (fields & kFieldAddress) r.address = address[at_address++];
    if (fields & kFieldCopyKind) r.copy_kind = static_cast<uint8_t>(copy_kind[at_copy_kind++]);
    if (runtime.size != 0) r.runtime = static_cast<uint8_t>(runtime[i]);
    visitor.on_api(r);
  }
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

void deliver_gpu_batch(const FrameColumns& c, const Batch& b, RecordVisitor& visitor) {
  using namespace gpu_activities;
  const Column<uint32_t> kind(c, b, kKind), device(c, b, kDevice), stream(c, b, kStream),
      graph(c, b, kGraph), kernel(c, b, kKernel), grid_x(c, b, kGridX), grid_y(c, b, kGridY),
      grid_z(c, b, kGridZ), block_x(c, b, kBlockX), block_y(c, b, kBlockY), block_z(c, b, kBlockZ),
      shared_mem(c, b, kSharedMem), registers(c, b, kRegisters), copy_kind(c, b, kCopyKind),
      src_kind(c, b, kSrcKind), peer_device(c, b, kPeerDevice), dst_kind(c, b, kDstKind),
      detail(c, b, kDetail);
  const Column<int64_t> start_delta(c, b, kStartDelta);
  const Column<uint64_t> duration(c, b, kDuration), correlation(c, b, kCorrelation),
      graph_node(c, b, kGraphNode), bytes(c, b, kBytes);
  uint32_t at_launch = 0, at_bytes = 0, at_copy = 0, at_target = 0, at_detail = 0;
  uint64_t start = b.scalar[kBaseNs];
  for (uint32_t i = 0; i < kind.size; ++i) {
    GpuRecord r{};
    r.kind = static_cast<GpuKind>(kind[i]);
    start += static_cast<uint64_t>(start_delta[i]);
    r.start_ns = start;
    r.end_ns = start + duration[i];
    r.correlation = correlation[i];
    r.device = device[i];
    r.stream = stream[i];
    r.graph = graph[i];
    r.graph_node = graph_node[i];
    const uint32_t fields = gpu_fields(r.kind);
    if (fields & kGpuFieldLaunch) {
      const uint32_t k = at_launch++;
      r.kernel = kernel[k];
      r.grid = {grid_x[k], grid_y[k], grid_z[k]};
      r.block = {block_x[k], block_y[k], block_z[k]};
      r.shared_mem = shared_mem[k];
      r.registers = registers[k];
    }
    if (fields & kGpuFieldBytes) r.bytes = bytes[at_bytes++];
    if (fields & kGpuFieldCopy) {
      r.copy_kind = static_cast<uint8_t>(copy_kind[at_copy]);
      r.src_kind = static_cast<uint8_t>(src_kind[at_copy]);
      r.peer_device = peer_device[at_copy];
      ++at_copy;
    }
    if (fields & kGpuFieldTarget) r.dst_kind = static_cast<uint8_t>(dst_kind[at_target++]);
    if (fields & kGpuFieldDetail) r.detail = detail[at_detail++];
    visitor.on_gpu(r);
  }
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

void deliver_ranges(const FrameColumns& c, const Batch& b, RecordVisitor& visitor) {
  using namespace ranges;
  const Column<uint32_t> op(c, b, kOp), name(c, b, kName), domain(c, b, kDomain),
      category(c, b, kCategory), color(c, b, kColor);
  const Column<int64_t> time_delta(c, b, kTimeDelta);
  const Column<uint64_t> range_id(c, b, kRangeId), payload(c, b, kPayload), seq(c, b, kSeq),
      op_id(c, b, kOpId);
  const auto tid = static_cast<uint32_t>(b.scalar[kTid]);
  uint64_t time = b.scalar[kBaseNs];
  // Made once: every field is written for every event (seq and op_id for
  // all or none of the batch), so nothing of one event stays in the next.
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.tid = tid;
  for (uint32_t i = 0; i < op.size; ++i) {
    e.op = static_cast<RangeOp>(op[i]);
    time += static_cast<uint64_t>(time_delta[i]);
    e.time_ns = time;
    e.name = name[i];
    e.domain = domain[i];
    e.category = category[i];
    e.range_id = range_id[i];
    e.color = color[i];
    e.payload = payload[i];
    if (seq.size != 0) e.seq = seq[i];
    if (op_id.size != 0) e.op_id = op_id[i];
    visitor.on_range(e);
  }
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
    deliver_api_batch(columns, batch, visitor);
    status.records += count;
  }
  for (const Batch& batch : columns.ranges) {
    deliver_ranges(columns, batch, visitor);
    status.range_events += batch.column[ranges::kOp].size;
  }
  for (const Batch& batch : columns.gpu) {
    deliver_gpu_batch(columns, batch, visitor);
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
