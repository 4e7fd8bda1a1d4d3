// The hand-written column decoder against libprotobuf: on frames of random
// columns written by gprof's own encoders, then reshaped, broken and cut, the
// reader must deliver exactly what the libprotobuf-only reader delivers, and
// reject exactly the frames it rejects.
#include "formats/read/frame_decoder.h"

#include <catch2/catch.hpp>

#include <google/protobuf/descriptor.h>

#include <random>
#include <string>
#include <vector>

#include "formats/read/column_decoder.h"
#include "formats/read/frame_columns.h"
#include "formats/read/wire_decoder.h"
#include "formats/write/frame_encoder.h"
#include "formats/write/wire_encoder.h"
#include "test/unit/formats/call_recorder.h"

namespace gprof {
namespace {

using Rng = std::mt19937_64;

// A value of a random width: most columns hold small numbers, some hold
// pointers and 64-bit ids, and the widest varints (10 bytes) must read too.
uint64_t any_width(Rng& rng) {
  const int bits = static_cast<int>(rng() % 65);
  if (bits == 0) return 0;
  return bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
}

constexpr ApiId kSomeApis[] = {ApiId::cudaLaunchKernel,     ApiId::cudaLaunchKernelInternal,
                               ApiId::cudaMemcpyAsync,      ApiId::cudaMemcpy,
                               ApiId::cudaMemset,           ApiId::cudaDeviceSynchronize,
                               ApiId::cudaMalloc,           ApiId::cudaFree,
                               ApiId::cudaGraphLaunch,      ApiId::cudaEventSynchronize,
                               ApiId::cudaStreamSynchronize};

ApiRecord random_call(Rng& rng, uint64_t& clock) {
  ApiRecord r{};
  r.kind = RecordKind::kApi;
  r.api = kSomeApis[rng() % std::size(kSomeApis)];
  clock += rng() % 3 == 0 ? any_width(rng) : rng() % 5000;  // sometimes back in time
  r.start_ns = clock;
  r.end_ns = clock + any_width(rng);
  r.result = static_cast<int32_t>(rng() % 4 == 0 ? any_width(rng) : 0);
  r.correlation = any_width(rng);
  r.kernel = static_cast<uint32_t>(any_width(rng));
  r.grid = {static_cast<uint32_t>(any_width(rng)), 1, static_cast<uint32_t>(rng() % 3)};
  r.block = {static_cast<uint32_t>(rng() % 1025), static_cast<uint32_t>(any_width(rng)), 1};
  r.shared_mem = static_cast<uint32_t>(any_width(rng));
  r.stream = any_width(rng);
  r.bytes = any_width(rng);
  r.address = any_width(rng);
  r.copy_kind = static_cast<uint8_t>(rng() % 5);
  r.runtime = static_cast<uint8_t>(rng() % 2 == 0 ? 13 : 0);
  return r;
}

GpuRecord random_gpu(Rng& rng, uint64_t& clock) {
  GpuRecord r{};
  r.kind = static_cast<GpuKind>(1 + rng() % 4);
  clock += rng() % 3 == 0 ? any_width(rng) : rng() % 5000;
  r.start_ns = clock;
  r.end_ns = clock + any_width(rng);
  r.correlation = any_width(rng);
  r.bytes = any_width(rng);
  r.graph_node = any_width(rng);
  r.kernel = static_cast<uint32_t>(any_width(rng));
  r.device = static_cast<uint32_t>(rng() % 8);
  r.stream = static_cast<uint32_t>(any_width(rng));
  r.graph = static_cast<uint32_t>(rng() % 2 == 0 ? 0 : any_width(rng));
  r.grid = {static_cast<uint32_t>(any_width(rng)), 2, 1};
  r.block = {256, static_cast<uint32_t>(any_width(rng)), 1};
  r.shared_mem = static_cast<uint32_t>(any_width(rng));
  r.registers = static_cast<uint32_t>(rng() % 256);
  r.peer_device = static_cast<uint32_t>(rng() % 4);
  r.detail = static_cast<uint32_t>(any_width(rng));
  r.copy_kind = static_cast<uint8_t>(rng() % 12);
  r.src_kind = static_cast<uint8_t>(rng() % 6);
  r.dst_kind = static_cast<uint8_t>(rng() % 6);
  return r;
}

RangeEvent random_range(Rng& rng, uint64_t& clock) {
  RangeEvent e{};
  e.kind = RecordKind::kRange;
  e.op = static_cast<RangeOp>(1 + rng() % 7);
  clock += rng() % 3 == 0 ? any_width(rng) : rng() % 5000;
  e.time_ns = clock;
  e.name = static_cast<uint32_t>(any_width(rng));
  e.domain = static_cast<uint32_t>(rng() % 3);
  e.category = static_cast<uint32_t>(rng() % 3);
  e.range_id = any_width(rng);
  e.color = static_cast<uint32_t>(any_width(rng));
  e.payload = any_width(rng);
  e.seq = rng() % 2 == 0 ? 0 : any_width(rng);
  e.op_id = rng() % 2 == 0 ? 0 : any_width(rng);
  return e;
}

// A frame as gprof's writer lays it out: strings, then batches of API calls
// (one per thread), NVTX events, GPU records, external correlations.
std::string random_frame(Rng& rng) {
  ByteBuffer frame;
  uint64_t clock = rng() % 1'000'000'000;
  if (rng() % 3 == 0) {
    const std::string name = "kernel_" + std::to_string(rng() % 100);
    encode_string(frame, static_cast<uint32_t>(rng() % 1000), StringKind::kKernel, name);
  }
  for (int b = static_cast<int>(rng() % 4); b > 0; --b) {
    ApiCallsEncoder calls;
    calls.begin(static_cast<uint32_t>(any_width(rng)));
    for (int n = static_cast<int>(rng() % 40); n > 0; --n) calls.add(random_call(rng, clock));
    calls.finish(frame);
  }
  for (int b = static_cast<int>(rng() % 3); b > 0; --b) {
    RangesEncoder ranges;
    ranges.begin(static_cast<uint32_t>(rng() % 100000));
    for (int n = static_cast<int>(rng() % 40); n > 0; --n) ranges.add(random_range(rng, clock));
    ranges.finish(frame);
  }
  if (rng() % 2 == 0) {
    GpuActivitiesEncoder gpu;
    for (int n = static_cast<int>(rng() % 40); n > 0; --n) gpu.add(random_gpu(rng, clock));
    gpu.finish(frame);
  }
  if (rng() % 4 == 0) {
    ExternalCorrelationsEncoder external;
    for (int n = static_cast<int>(rng() % 10); n > 0; --n) external.add(any_width(rng), rng());
    external.finish(frame);
  }
  if (rng() % 8 == 0) {
    FooterFields footer;
    footer.api_records = rng() % 1000;
    encode_footer(frame, footer);
  }
  return {reinterpret_cast<const char*>(frame.data()), frame.size()};
}

// Reshapes a well-formed frame through libprotobuf: a column made one
// longer or shorter (the checks must refuse it), an unknown API or GPU kind.
std::string reshape(Rng& rng, const std::string& payload) {
  pb::Frame frame;
  REQUIRE(frame.ParseFromString(payload));
  std::vector<google::protobuf::Message*> batches;
  for (auto& b : *frame.mutable_api_calls()) batches.push_back(&b);
  for (auto& b : *frame.mutable_gpu_activities()) batches.push_back(&b);
  for (auto& b : *frame.mutable_ranges()) batches.push_back(&b);
  for (auto& b : *frame.mutable_external_correlations()) batches.push_back(&b);
  if (batches.empty()) return payload;
  google::protobuf::Message& batch = *batches[rng() % batches.size()];
  const google::protobuf::Descriptor* d = batch.GetDescriptor();
  const google::protobuf::FieldDescriptor* field =
      d->field(static_cast<int>(rng() % d->field_count()));
  const google::protobuf::Reflection* r = batch.GetReflection();
  if (!field->is_repeated()) return payload;
  const uint64_t value = any_width(rng);
  const bool grow = rng() % 2 == 0 || r->FieldSize(batch, field) == 0;
  using google::protobuf::FieldDescriptor;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_UINT32:
      if (grow) r->AddUInt32(&batch, field, static_cast<uint32_t>(value));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      if (grow) r->AddInt32(&batch, field, static_cast<int32_t>(value));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      if (grow) r->AddUInt64(&batch, field, value);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      if (grow) r->AddInt64(&batch, field, static_cast<int64_t>(value));
      break;
    default:
      return payload;
  }
  if (!grow) r->RemoveLast(&batch, field);
  if (rng() % 4 == 0 && frame.api_calls_size() > 0 && frame.api_calls(0).api_size() > 0)
    frame.mutable_api_calls(0)->set_api(0, rng() % 2 == 0 ? 60000 : 300);
  if (rng() % 4 == 0 && frame.gpu_activities_size() > 0 && frame.gpu_activities(0).kind_size() > 0)
    frame.mutable_gpu_activities(0)->set_kind(0, static_cast<uint32_t>(rng() % 7));
  return frame.SerializeAsString();
}

// Breaks the bytes: flipped bytes, a cut, inserted bytes.
std::string damage(Rng& rng, std::string payload) {
  if (payload.empty()) return payload;
  switch (rng() % 3) {
    case 0:
      for (int i = 1 + static_cast<int>(rng() % 3); i > 0; --i)
        payload[rng() % payload.size()] = static_cast<char>(rng());
      break;
    case 1:
      payload.resize(rng() % payload.size());
      break;
    default:
      payload.insert(rng() % payload.size(), std::string(1 + rng() % 3, static_cast<char>(rng())));
      break;
  }
  return payload;
}

struct Delivery {
  bool ok = false;
  ReadStatus status;
  std::vector<std::string> lines;
};

Delivery deliver(FrameDecoder& decoder, const std::string& payload) {
  Delivery d;
  Recorder recorder;
  d.ok = decoder.deliver(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), recorder,
                         d.status);
  d.lines = std::move(recorder.lines);
  return d;
}

// Both readers on one payload: the same answer, the same calls, the same counts.
void require_same_delivery(const std::string& payload, FrameDecoder& columns,
                           FrameDecoder& protobuf) {
  const Delivery a = deliver(columns, payload);
  const Delivery b = deliver(protobuf, payload);
  REQUIRE(a.ok == b.ok);
  REQUIRE(a.lines == b.lines);
  CHECK(a.status.records == b.status.records);
  CHECK(a.status.gpu_records == b.status.gpu_records);
  CHECK(a.status.range_events == b.status.range_events);
  CHECK(a.status.skipped_records == b.status.skipped_records);
  CHECK(a.status.first_unknown_api == b.status.first_unknown_api);
  CHECK(a.status.complete == b.status.complete);
}

// Where the column decoder takes a frame, its columns hold what libprotobuf
// parsed, value for value.
void require_same_columns(const std::string& payload) {
  FrameColumns fast, reference;
  std::string other;
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  if (!decode_columns(p, payload.size(), fast, other)) return;
  pb::Frame whole, rest;
  // The other fields are libprotobuf's: where they do not parse, neither does
  // the frame; where they do, neither part took what libprotobuf refuses.
  if (!rest.ParseFromString(other)) {
    REQUIRE_FALSE(whole.ParseFromString(payload));
    return;
  }
  REQUIRE(whole.ParseFromString(payload));
  columns_from_messages(whole, reference);
  const auto same = [&](const std::vector<Batch>& x, const std::vector<Batch>& y,
                        FieldTable fields) {
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      CHECK(x[i].scalar[1] == y[i].scalar[1]);
      CHECK(x[i].scalar[2] == y[i].scalar[2]);
      for (uint32_t f = 1; f < fields.size(); ++f) {
        INFO("batch " << i << " field " << f);
        const ColumnRef& a = x[i].column[f];
        const ColumnRef& b = y[i].column[f];
        REQUIRE(a.size == b.size);
        for (uint32_t k = 0; k < a.size; ++k) {
          switch (fields[f]) {
            case FieldType::kUint32:
              REQUIRE(fast.values<uint32_t>(a)[k] == reference.values<uint32_t>(b)[k]);
              break;
            case FieldType::kSint32:
              REQUIRE(fast.values<int32_t>(a)[k] == reference.values<int32_t>(b)[k]);
              break;
            case FieldType::kUint64:
              REQUIRE(fast.values<uint64_t>(a)[k] == reference.values<uint64_t>(b)[k]);
              break;
            case FieldType::kSint64:
              REQUIRE(fast.values<int64_t>(a)[k] == reference.values<int64_t>(b)[k]);
              break;
            default:
              break;
          }
        }
      }
    }
  };
  same(fast.api, reference.api, api_calls_fields());
  same(fast.gpu, reference.gpu, gpu_activities_fields());
  same(fast.ranges, reference.ranges, ranges_fields());
  same(fast.external, reference.external, external_correlations_fields());
}

TEST_CASE("column decoder: field tables match gprof.proto", "[decoder]") {
  using google::protobuf::FieldDescriptor;
  const auto check = [](const google::protobuf::Descriptor* d, FieldTable fields) {
    INFO(d->full_name());
    int listed = 0;
    for (uint32_t number = 1; number < fields.size(); ++number)
      listed += fields[number] != FieldType::kNone;
    // A new field must be added to the table, or every frame with it would
    // be left to libprotobuf (slow) by the column decoder.
    CHECK(listed == d->field_count());
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      INFO(f->name());
      REQUIRE(static_cast<uint32_t>(f->number()) < fields.size());
      const FieldType want = [&] {
        if (!f->is_repeated())
          return f->type() == FieldDescriptor::TYPE_UINT32   ? FieldType::kScalar32
                 : f->type() == FieldDescriptor::TYPE_UINT64 ? FieldType::kScalar64
                                                             : FieldType::kNone;
        switch (f->type()) {
          case FieldDescriptor::TYPE_UINT32:
            return FieldType::kUint32;
          case FieldDescriptor::TYPE_SINT32:
            return FieldType::kSint32;
          case FieldDescriptor::TYPE_UINT64:
            return FieldType::kUint64;
          case FieldDescriptor::TYPE_SINT64:
            return FieldType::kSint64;
          default:
            return FieldType::kNone;
        }
      }();
      CHECK(fields[static_cast<uint32_t>(f->number())] == want);
      if (f->is_repeated()) CHECK(f->is_packed());
    }
  };
  check(pb::ApiCalls::descriptor(), api_calls_fields());
  check(pb::GpuActivities::descriptor(), gpu_activities_fields());
  check(pb::Ranges::descriptor(), ranges_fields());
  check(pb::ExternalCorrelations::descriptor(), external_correlations_fields());
}

TEST_CASE("column decoder: varints as libprotobuf reads them", "[decoder]") {
  const auto read = [](std::initializer_list<uint8_t> bytes, uint64_t& value) {
    const std::vector<uint8_t> b(bytes);
    const uint8_t* end = b.data() + b.size();
    const uint8_t* after = wire::read_varint(b.data(), end, value);
    return after == nullptr ? -1 : static_cast<int>(after - b.data());
  };
  uint64_t v = 0;
  CHECK(read({0x00}, v) == 1);
  CHECK(v == 0);
  CHECK(read({0x96, 0x01}, v) == 2);  // the spec's example: 150
  CHECK(v == 150);
  CHECK(read({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, v) == 10);
  CHECK(v == UINT64_MAX);
  // A 10th byte's bits past the 64th are dropped, not an error.
  CHECK(read({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F}, v) == 10);
  CHECK(v == uint64_t{1} << 63);
  CHECK(read({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, v) == -1);
  CHECK(read({0x80}, v) == -1);  // runs past the end
  CHECK(wire::AsSint32{}(3) == -2);
  CHECK(wire::AsSint32{}(uint64_t{0xFFFFFFFF}) == INT32_MIN);
  CHECK(wire::AsSint64{}(UINT64_MAX) == INT64_MIN);
  CHECK(wire::AsUint32{}(uint64_t{1} << 32 | 7) == 7);
}

TEST_CASE("column decoder: packed runs of any widths", "[decoder]") {
  Rng rng(7);
  for (int round = 0; round < 2000; ++round) {
    ByteBuffer bytes;
    std::vector<uint64_t> want(rng() % 40);
    for (uint64_t& value : want) {
      value = rng() % 3 == 0 ? any_width(rng) : rng() % 128;
      put_varint(bytes, value);
    }
    std::vector<uint64_t> got(bytes.size() + 1);
    const long n = wire::decode_packed(bytes.data(), bytes.data() + bytes.size(), got.data(),
                                       wire::AsUint64{});
    REQUIRE(n == static_cast<long>(want.size()));
    got.resize(want.size());
    REQUIRE(got == want);
    if (bytes.size() > 0) {  // cut inside the last varint, or after it
      const long cut = wire::decode_packed(bytes.data(), bytes.data() + bytes.size() - 1,
                                           got.data(), wire::AsUint64{});
      CHECK((cut == -1 || cut == static_cast<long>(want.size()) - 1));
    }
  }
}

// Runs of one-byte values go through eight(), the rest one by one: both must
// convert as operator() does.
template <typename T, typename Convert>
void check_conversion(Rng& rng, Convert convert) {
  for (int round = 0; round < 500; ++round) {
    ByteBuffer bytes;
    std::vector<T> want(rng() % 60);
    for (T& value : want) {
      const uint64_t raw = rng() % 4 == 0 ? any_width(rng) : rng() % 128;
      put_varint(bytes, raw);
      value = convert(raw);
    }
    std::vector<T> got(bytes.size() + 1);
    const long n =
        wire::decode_packed(bytes.data(), bytes.data() + bytes.size(), got.data(), convert);
    REQUIRE(n == static_cast<long>(want.size()));
    got.resize(want.size());
    REQUIRE(got == want);
  }
}

TEST_CASE("column decoder: each column type converts as libprotobuf does", "[decoder]") {
  Rng rng(3);
  check_conversion<uint32_t>(rng, wire::AsUint32{});
  check_conversion<int32_t>(rng, wire::AsSint32{});
  check_conversion<uint64_t>(rng, wire::AsUint64{});
  check_conversion<int64_t>(rng, wire::AsSint64{});
  int32_t s32[8];
  wire::AsSint32{}.eight(0x7F7E030201000000ull, s32);  // bytes 0 0 0 1 2 3 126 127
  CHECK(s32[3] == -1);
  CHECK(s32[4] == 1);
  CHECK(s32[5] == -2);
  CHECK(s32[6] == 63);
  CHECK(s32[7] == -64);
}

#if defined(__x86_64__)
// The reader takes the Pext way where the CPU has BMI2 (column_decoder.cc):
// it must read what InWord reads, varints of every width at every place in
// a word, each column type too.
template <typename T, typename Convert>
void check_pext(Rng& rng, Convert convert) {
  for (int round = 0; round < 2000; ++round) {
    ByteBuffer bytes;
    std::vector<T> want(rng() % 50);
    for (T& value : want) {
      const uint64_t raw = rng() % 2 == 0 ? any_width(rng) : rng() % 128;
      put_varint(bytes, raw);
      value = convert(raw);
    }
    std::vector<T> in_word(bytes.size() + 1), pext(bytes.size() + 1);
    const uint8_t* end = bytes.data() + bytes.size();
    const long n = wire::decode_packed(bytes.data(), end, in_word.data(), convert, wire::InWord{});
    REQUIRE(wire::decode_packed(bytes.data(), end, pext.data(), convert, wire::Pext{}) == n);
    REQUIRE(n == static_cast<long>(want.size()));
    in_word.resize(want.size());
    pext.resize(want.size());
    REQUIRE(in_word == want);
    REQUIRE(pext == want);
  }
}

TEST_CASE("column decoder: BMI2's pext reads what InWord reads", "[decoder]") {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("popcnt")) {
    WARN("this CPU has no BMI2: the Pext way is not used here");
    return;
  }
  Rng rng(11);
  check_pext<uint32_t>(rng, wire::AsUint32{});
  check_pext<int32_t>(rng, wire::AsSint32{});
  check_pext<uint64_t>(rng, wire::AsUint64{});
  check_pext<int64_t>(rng, wire::AsSint64{});
}
#endif

// eight() widens eight one-byte values at once: each type's, against
// operator() on every byte value in every lane.
TEST_CASE("column decoder: eight one-byte values convert as one does", "[decoder]") {
  for (uint64_t first = 0; first < 128; first += 8) {
    for (int rotate = 0; rotate < 8; ++rotate) {
      uint64_t word = 0;
      for (int lane = 0; lane < 8; ++lane)
        word |= ((first + static_cast<uint64_t>((lane + rotate) % 8)) & 0x7F) << (8 * lane);
      uint32_t u32[8];
      int32_t s32[8];
      uint64_t u64[8];
      int64_t s64[8];
      wire::AsUint32{}.eight(word, u32);
      wire::AsSint32{}.eight(word, s32);
      wire::AsUint64{}.eight(word, u64);
      wire::AsSint64{}.eight(word, s64);
      for (int lane = 0; lane < 8; ++lane) {
        const uint64_t byte = word >> (8 * lane) & 0xFF;
        INFO("byte " << byte << " in lane " << lane);
        CHECK(u32[lane] == wire::AsUint32{}(byte));
        CHECK(s32[lane] == wire::AsSint32{}(byte));
        CHECK(u64[lane] == wire::AsUint64{}(byte));
        CHECK(s64[lane] == wire::AsSint64{}(byte));
      }
    }
  }
}

TEST_CASE("column decoder: frames of gprof's encoders take the column path", "[decoder]") {
  Rng rng(1);
  FrameDecoder columns, protobuf;
  protobuf.set_protobuf_only(true);
  constexpr int kFrames = 300;
  for (int i = 0; i < kFrames; ++i) {
    const std::string payload = random_frame(rng);
    INFO("frame " << i);
    require_same_columns(payload);
    require_same_delivery(payload, columns, protobuf);
  }
  CHECK(columns.column_frames() == kFrames);
  CHECK(protobuf.column_frames() == 0);
}

TEST_CASE(
    "column decoder: reshaped, damaged and cut frames are read or refused as libprotobuf does",
    "[decoder]") {
  Rng rng(2);
  FrameDecoder columns, protobuf;
  protobuf.set_protobuf_only(true);
  int bad = 0, good = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string payload = random_frame(rng);
    if (rng() % 2 == 0) payload = reshape(rng, payload);
    if (rng() % 2 == 0) payload = damage(rng, payload);
    INFO("frame " << i);
    require_same_columns(payload);
    const Delivery reference = deliver(protobuf, payload);
    (reference.ok ? good : bad) += 1;
    require_same_delivery(payload, columns, protobuf);
  }
  // Both kinds are common enough for the comparison to mean something.
  CHECK(bad > 300);
  CHECK(good > 300);
}

// Shapes gprof never writes, which libprotobuf reads (or refuses): each is
// left to libprotobuf, and read the same.
TEST_CASE("column decoder: other encodings of the same frame", "[decoder]") {
  const auto tag = [](ByteBuffer& out, uint32_t field, uint32_t wire_type) {
    put_varint(out, field << 3 | wire_type);
  };
  const auto message = [&](uint32_t field, const ByteBuffer& body) {
    ByteBuffer out;
    put_message(out, field, body);
    return std::string(reinterpret_cast<const char*>(out.data()), out.size());
  };
  // One cudaFree call on thread 5, columns in the given order and encodings.
  const auto batch = [&](bool unpacked_api, bool twice, bool unknown, bool wide_tid) {
    ByteBuffer b;
    if (wide_tid) {  // 11 bytes: libprotobuf refuses
      tag(b, 1, 0);
      for (int i = 0; i < 10; ++i) b.push(0x85);
      b.push(0x00);
    } else {
      put_uint64(b, 1, 5);
    }
    put_uint64(b, 2, 1000);
    if (unpacked_api) {
      tag(b, 3, 0);
      put_varint(b, static_cast<uint64_t>(ApiId::cudaFree));
    } else {
      ByteBuffer col;
      put_varint(col, static_cast<uint64_t>(ApiId::cudaFree));
      put_packed(b, 3, col);
    }
    ByteBuffer one;
    put_varint(one, 7);
    put_packed(b, 4, one);
    put_packed(b, 5, one);
    put_packed(b, 6, one);
    put_packed(b, 7, one);
    if (twice) put_uint64(b, 1, 6);  // a scalar given again: the last one holds
    put_packed(b, 18, one);          // cudaFree's address
    if (unknown) {
      put_uint64(b, 99, 1);
      tag(b, 98, 5);
      for (int i = 0; i < 4; ++i) b.push(1);
    }
    return message(3, b);
  };
  std::vector<std::string> payloads = {
      batch(false, false, false, false), batch(true, false, false, false),
      batch(false, true, false, false),  batch(false, false, true, false),
      batch(false, false, false, true),
  };
  // A packed column in two pieces: libprotobuf concatenates them.
  {
    ByteBuffer b, col;
    put_varint(col, static_cast<uint64_t>(ApiId::cudaFree));
    put_packed(b, 3, col);
    put_packed(b, 3, col);
    ByteBuffer two;
    put_varint(two, 1);
    put_varint(two, 2);
    for (uint32_t f : {4u, 5u, 6u, 7u, 18u}) put_packed(b, f, two);
    payloads.push_back(message(3, b));
  }
  // A group at the top of the frame (libprotobuf skips it), a stray end group.
  {
    ByteBuffer g;
    tag(g, 50, 3);
    put_uint64(g, 1, 9);
    tag(g, 50, 4);
    payloads.push_back(std::string(reinterpret_cast<const char*>(g.data()), g.size()) +
                       batch(false, false, false, false));
    ByteBuffer stray;
    tag(stray, 50, 4);
    payloads.push_back(std::string(reinterpret_cast<const char*>(stray.data()), stray.size()));
  }
  // A batch field with a varint wire type (an unknown field to libprotobuf).
  {
    ByteBuffer b;
    put_uint64(b, 3, 17);
    payloads.push_back(std::string(reinterpret_cast<const char*>(b.data()), b.size()) +
                       batch(false, false, false, false));
  }
  // Values wider than their field: a 32-bit tid in 6 bytes, a sint32 result
  // in 10 (libprotobuf keeps the low 32 bits), a 64-bit address in 10.
  {
    ByteBuffer b, one, seven, wide;
    tag(b, 1, 0);
    put_varint(b, uint64_t{1} << 32 | 5);
    put_varint(one, static_cast<uint64_t>(ApiId::cudaFree));
    put_packed(b, 3, one);
    put_varint(seven, 7);
    ByteBuffer plus_seven;  // zig-zag
    put_varint(plus_seven, 14);
    put_packed(b, 4, plus_seven);
    put_packed(b, 5, seven);
    put_varint(wide, UINT64_MAX);
    put_packed(b, 6, wide);
    put_packed(b, 7, seven);
    put_packed(b, 18, wide);
    payloads.push_back(message(3, b));
  }
  // A length written in more bytes than needed.
  {
    ByteBuffer b;
    tag(b, 3, 2);
    b.push(0x80);
    b.push(0x00);
    payloads.push_back(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
  }
  // A string entry that is not UTF-8 and a header, beside the batches.
  {
    ByteBuffer b;
    encode_string(b, 3, StringKind::kNvtx, "bad\xFF");
    payloads.push_back(std::string(reinterpret_cast<const char*>(b.data()), b.size()) +
                       batch(false, false, false, false));
  }
  FrameDecoder columns, protobuf;
  protobuf.set_protobuf_only(true);
  for (size_t i = 0; i < payloads.size(); ++i) {
    INFO("payload " << i);
    require_same_columns(payloads[i]);
    require_same_delivery(payloads[i], columns, protobuf);
  }
  CHECK(deliver(protobuf, payloads[0]).lines.size() == 1);
  CHECK(deliver(protobuf, payloads[1]).lines.size() == 1);  // unpacked: read
  CHECK_FALSE(deliver(protobuf, payloads[4]).ok);           // an 11-byte varint: refused
  // The wide values go the column path, and come out as libprotobuf's.
  const uint64_t before = columns.column_frames();
  const Delivery wide = deliver(columns, payloads[9]);
  CHECK(columns.column_frames() == before + 1);
  REQUIRE(wide.lines.size() == 1);
  CHECK(wide.lines[0].starts_with("api " +
                                  Recorder::join({static_cast<uint64_t>(ApiId::cudaFree), 5, 7, 14,
                                                  static_cast<uint64_t>(int64_t{INT32_MIN})})));
}

}  // namespace
}  // namespace gprof
