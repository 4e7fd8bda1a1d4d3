#include "formats/read/column_decoder.h"

#include "formats/read/wire_decoder.h"

namespace gprof {
namespace {

// Frame's field numbers of the batch messages (gprof.proto).
constexpr uint32_t kFrameApiCalls = 3;
constexpr uint32_t kFrameGpuActivities = 5;
constexpr uint32_t kFrameExternalCorrelations = 6;
constexpr uint32_t kFrameRanges = 8;

template <typename Assemble, typename T, typename Convert>
bool decode_column(const uint8_t* p, const uint8_t* end, Pool<T>& pool, ColumnRef& ref,
                   Convert convert) {
  const auto room = static_cast<size_t>(end - p);
  const long count = wire::decode_packed(p, end, pool.reserve(room), convert, Assemble{});
  if (count < 0) return false;
  ref.offset = static_cast<uint32_t>(pool.size());
  ref.size = static_cast<uint32_t>(count);
  pool.commit(static_cast<size_t>(count));
  return true;
}

// One batch message in [p, end): every field known, given once, columns packed.
template <typename Assemble>
bool decode_batch(const uint8_t* p, const uint8_t* end, FieldTable fields, Batch& batch,
                  FrameColumns& out) {
  uint32_t seen = 0;  // bit per field number
  while (p < end) {
    uint32_t number = 0, wire_type = 0;
    p = wire::read_tag(p, end, number, wire_type);
    if (p == nullptr || number >= fields.size() || (seen >> number & 1) != 0) return false;
    seen |= 1u << number;
    const FieldType type = fields[number];
    if (type == FieldType::kScalar32 || type == FieldType::kScalar64) {
      uint64_t value = 0;
      if (wire_type != wire::kVarint || number >= std::size(batch.scalar)) return false;
      p = wire::read_varint(p, end, value);
      if (p == nullptr) return false;
      batch.scalar[number] = type == FieldType::kScalar32 ? static_cast<uint32_t>(value) : value;
      continue;
    }
    size_t length = 0;
    if (wire_type != wire::kLengthDelimited) return false;
    p = wire::read_length(p, end, length);
    if (p == nullptr) return false;
    const uint8_t* column_end = p + length;
    ColumnRef& ref = batch.column[number];
    bool ok = false;
    switch (type) {
      case FieldType::kUint32:
        ok = decode_column<Assemble>(p, column_end, out.u32, ref, wire::AsUint32{});
        break;
      case FieldType::kSint32:
        ok = decode_column<Assemble>(p, column_end, out.s32, ref, wire::AsSint32{});
        break;
      case FieldType::kUint64:
        ok = decode_column<Assemble>(p, column_end, out.u64, ref, wire::AsUint64{});
        break;
      case FieldType::kSint64:
        ok = decode_column<Assemble>(p, column_end, out.s64, ref, wire::AsSint64{});
        break;
      default:  // kNone: a field this build does not know
        break;
    }
    if (!ok) return false;
    p = column_end;
  }
  return true;
}

#if defined(__x86_64__)
// flatten: everything decode_batch calls is inlined here, in BMI code, so
// that wire::Pext is inlined too.
__attribute__((target("bmi2,popcnt"), flatten)) bool decode_batch_bmi2(
    const uint8_t* p, const uint8_t* end, FieldTable fields, Batch& batch, FrameColumns& out) {
  return decode_batch<wire::Pext>(p, end, fields, batch, out);
}

// AMD before Zen 3 (family 17h) runs pext in microcode, slower than InWord.
bool fast_pext() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") &&
         !__builtin_cpu_is("amdfam17h");
}
#endif

bool decode_any_batch(const uint8_t* p, const uint8_t* end, FieldTable fields, Batch& batch,
                      FrameColumns& out) {
#if defined(__x86_64__)
  static const bool pext = fast_pext();
  if (pext) return decode_batch_bmi2(p, end, fields, batch, out);
#endif
  return decode_batch<wire::InWord>(p, end, fields, batch, out);
}

}  // namespace

bool decode_columns(const uint8_t* payload, size_t size, FrameColumns& columns,
                    std::string& other) {
  columns.clear();
  other.clear();
  const uint8_t* p = payload;
  const uint8_t* const end = payload + size;
  while (p < end) {
    const uint8_t* const field_start = p;
    uint32_t number = 0, wire_type = 0;
    p = wire::read_tag(p, end, number, wire_type);
    if (p == nullptr) return false;
    std::vector<Batch>* batches = nullptr;
    FieldTable fields;
    switch (number) {
      case kFrameApiCalls:
        batches = &columns.api;
        fields = api_calls_fields();
        break;
      case kFrameGpuActivities:
        batches = &columns.gpu;
        fields = gpu_activities_fields();
        break;
      case kFrameRanges:
        batches = &columns.ranges;
        fields = ranges_fields();
        break;
      case kFrameExternalCorrelations:
        batches = &columns.external;
        fields = external_correlations_fields();
        break;
      default:
        break;
    }
    if (batches == nullptr || wire_type != wire::kLengthDelimited) {
      // Not a batch (or a batch's number with another wire type, which
      // libprotobuf keeps as an unknown field): libprotobuf's.
      p = wire::skip_value(p, end, wire_type);
      if (p == nullptr) return false;
      other.append(reinterpret_cast<const char*>(field_start),
                   static_cast<size_t>(p - field_start));
      continue;
    }
    size_t length = 0;
    p = wire::read_length(p, end, length);
    if (p == nullptr) return false;
    if (!decode_any_batch(p, p + length, fields, batches->emplace_back(), columns)) return false;
    p += length;
  }
  return true;
}

}  // namespace gprof
