// gpuprof-damage: copies a sidecar file with damage that passes the frame
// checksums, so that the readers' decoding and every command's handling of
// strange records are tested, not only the checksum (test/e2e/test_damage.py).
// Frames that parse are changed through protobuf reflection, so any field the
// format gains is damaged too without a change here: a number set to 0, 1,
// its type's largest value, a neighbour or random bits; a string emptied,
// lengthened or given bytes that are not UTF-8; an element of a repeated
// field (a column of a batch) dropped or repeated, leaving columns of unequal
// length; a frame dropped, repeated or moved. The same seed gives the same
// bytes. A developer tool, like gpuprof-gen: built with the tree, not
// installed.
#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/stubs/logging.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/gprof.pb.h"

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Frame {
  std::string bytes;  // the payload as read, or as re-encoded once damaged
  bool parsed = false;
  gprof::pb::Frame message;
};

// One place a value can be damaged: a field of a message, and the element
// for a repeated field (-1 otherwise).
struct Slot {
  Message* message;
  const FieldDescriptor* field;
  int index;
};

void collect(Message& message, std::vector<Slot>& slots) {
  const Reflection* reflection = message.GetReflection();
  const auto* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->is_repeated()) {
      const int size = reflection->FieldSize(message, field);
      for (int k = 0; k < size; ++k) {
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
          collect(*reflection->MutableRepeatedMessage(&message, field, k), slots);
        else
          slots.push_back(Slot{&message, field, k});
      }
      if (size > 0) slots.push_back(Slot{&message, field, -1});  // the field as a whole
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (reflection->HasField(message, field))
        collect(*reflection->MutableMessage(&message, field), slots);
    } else {
      slots.push_back(Slot{&message, field, -1});
    }
  }
}

class Damage {
 public:
  explicit Damage(uint64_t seed) : rng_(seed) {}

  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  // A number near the edges more often than not: the values that break code.
  uint64_t number(uint64_t old, uint64_t max) {
    switch (below(8)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return max;
      case 3:
        return max - below(3);
      case 4:
        return old + 1;
      case 5:
        return old - 1;
      case 6:
        return old ^ (uint64_t{1} << below(64));
      default:
        return rng_();
    }
  }

  std::string text(const std::string& old) {
    switch (below(4)) {
      case 0:
        return "";
      case 1:
        return old + old + old + old;
      case 2:
        return std::string("\xff\xfe|\n\0bad", 9) + old;
      default: {
        std::string out = old;
        if (!out.empty()) out[below(out.size())] = static_cast<char>(rng_());
        return out;
      }
    }
  }

  void value(const Slot& s) {
    Message& m = *s.message;
    const Reflection* r = m.GetReflection();
    const FieldDescriptor* f = s.field;
    const bool rep = s.index >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT64: {
        const uint64_t v = number(rep ? r->GetRepeatedUInt64(m, f, s.index) : r->GetUInt64(m, f),
                                  std::numeric_limits<uint64_t>::max());
        rep ? r->SetRepeatedUInt64(&m, f, s.index, v) : r->SetUInt64(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        const auto old =
            static_cast<uint64_t>(rep ? r->GetRepeatedInt64(m, f, s.index) : r->GetInt64(m, f));
        const auto v = static_cast<int64_t>(number(old, std::numeric_limits<int64_t>::max()));
        rep ? r->SetRepeatedInt64(&m, f, s.index, v) : r->SetInt64(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        const auto v = static_cast<uint32_t>(
            number(rep ? r->GetRepeatedUInt32(m, f, s.index) : r->GetUInt32(m, f),
                   std::numeric_limits<uint32_t>::max()));
        rep ? r->SetRepeatedUInt32(&m, f, s.index, v) : r->SetUInt32(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT32: {
        const auto old =
            static_cast<uint64_t>(rep ? r->GetRepeatedInt32(m, f, s.index) : r->GetInt32(m, f));
        const auto v = static_cast<int32_t>(number(old, std::numeric_limits<int32_t>::max()));
        rep ? r->SetRepeatedInt32(&m, f, s.index, v) : r->SetInt32(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        const bool v = !(rep ? r->GetRepeatedBool(m, f, s.index) : r->GetBool(m, f));
        rep ? r->SetRepeatedBool(&m, f, s.index, v) : r->SetBool(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        // Open enums (proto3) keep numbers they do not name: the reader must too.
        const auto v = static_cast<int>(
            number(static_cast<uint64_t>(rep ? r->GetRepeatedEnumValue(m, f, s.index)
                                             : r->GetEnumValue(m, f)),
                   std::numeric_limits<int32_t>::max()));
        rep ? r->SetRepeatedEnumValue(&m, f, s.index, v) : r->SetEnumValue(&m, f, v);
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        const std::string v = text(rep ? r->GetRepeatedString(m, f, s.index) : r->GetString(m, f));
        rep ? r->SetRepeatedString(&m, f, s.index, v) : r->SetString(&m, f, v);
        break;
      }
      default:  // doubles and floats: the format has none
        break;
    }
  }

  // A whole repeated field: one element dropped or the last one repeated,
  // so that a batch's columns no longer have one length.
  void resize(const Slot& s) {
    Message& m = *s.message;
    const Reflection* r = m.GetReflection();
    if (below(2) == 0 || s.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      const int size = r->FieldSize(m, s.field);
      r->SwapElements(&m, s.field, static_cast<int>(below(size)), size - 1);
      r->RemoveLast(&m, s.field);
      return;
    }
    const int last = r->FieldSize(m, s.field) - 1;
    switch (s.field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT64:
        r->AddUInt64(&m, s.field, r->GetRepeatedUInt64(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->AddInt64(&m, s.field, r->GetRepeatedInt64(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->AddUInt32(&m, s.field, r->GetRepeatedUInt32(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->AddInt32(&m, s.field, r->GetRepeatedInt32(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->AddEnumValue(&m, s.field, r->GetRepeatedEnumValue(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        r->AddString(&m, s.field, r->GetRepeatedString(m, s.field, last));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->AddBool(&m, s.field, r->GetRepeatedBool(m, s.field, last));
        break;
      default:
        break;
    }
  }

  // One change somewhere in the file; false when there was nothing to change.
  bool apply(std::vector<Frame>& frames) {
    if (frames.empty()) return false;
    const uint64_t kind = below(10);
    if (kind == 0 && frames.size() > 1) {             // a frame dropped, repeated or moved
      const size_t a = 1 + below(frames.size() - 1);  // the header frame stays first
      const size_t b = below(frames.size());
      switch (below(3)) {
        case 0:
          frames.erase(frames.begin() + static_cast<std::ptrdiff_t>(a));
          break;
        case 1:
          frames.insert(frames.begin() + static_cast<std::ptrdiff_t>(b), frames[a]);
          break;
        default:
          std::swap(frames[a], frames[b]);
          break;
      }
      return true;
    }
    std::vector<size_t> parsed;
    for (size_t i = 0; i < frames.size(); ++i)
      if (frames[i].parsed) parsed.push_back(i);
    if (parsed.empty()) return false;
    Frame& frame = frames[parsed[below(parsed.size())]];
    std::vector<Slot> slots;
    collect(frame.message, slots);
    if (slots.empty()) return false;
    const Slot& slot = slots[below(slots.size())];
    if (slot.field->is_repeated() && slot.index < 0)
      resize(slot);
    else
      value(slot);
    frame.bytes = frame.message.SerializeAsString();
    return true;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gpuprof-damage: copies a sidecar file with changes that keep every frame's checksum "
      "right: numbers and strings of its records set to edge values, columns of unequal "
      "length, frames dropped, repeated or moved. The same seed gives the same bytes.",
      "gpuprof-damage"};
  std::string input;
  std::string output;
  uint64_t seed = 1;
  unsigned changes = 1;
  app.add_option("file", input, "Sidecar file to copy")->required();
  app.add_option("-o,--output", output, "Damaged copy")->required();
  app.add_option("--seed", seed, "Seed of the changes")->capture_default_str();
  app.add_option("--changes", changes, "Changes to make")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  CLI11_PARSE(app, argc, argv);
  // Strings that are not UTF-8 are written on purpose: no warning for each.
  google::protobuf::SetLogHandler(nullptr);

  std::ifstream in(input, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    fmt::print(stderr, "gpuprof-damage: error: cannot read {}\n", input);
    return 1;
  }
  if (data.size() < gprof::kFilePreambleSize) {
    fmt::print(stderr, "gpuprof-damage: error: {}: not a sidecar file\n", input);
    return 1;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::vector<Frame> frames;
  size_t off = gprof::kFilePreambleSize;
  while (off + gprof::kFrameHeaderSize <= data.size()) {
    const uint32_t size = gprof::load_le32(bytes + off);
    if (size > data.size() - off - gprof::kFrameHeaderSize) break;
    Frame frame;
    frame.bytes = data.substr(off + gprof::kFrameHeaderSize, size);
    frame.parsed = frame.message.ParseFromString(frame.bytes);
    frames.push_back(std::move(frame));
    off += gprof::kFrameHeaderSize + size;
  }
  const std::string tail = data.substr(off);  // a torn last frame stays torn

  Damage damage(seed);
  unsigned made = 0;
  for (unsigned i = 0; i < changes * 4 && made < changes; ++i)
    if (damage.apply(frames)) ++made;

  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(gprof::kFilePreambleSize));
  for (const Frame& frame : frames) {
    unsigned char header[gprof::kFrameHeaderSize];
    gprof::store_le32(header, static_cast<uint32_t>(frame.bytes.size()));
    gprof::store_le32(header + 4, gprof::crc32c(frame.bytes.data(), frame.bytes.size()));
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    out.write(frame.bytes.data(), static_cast<std::streamsize>(frame.bytes.size()));
  }
  out.write(tail.data(), static_cast<std::streamsize>(tail.size()));
  out.close();
  if (!out) {
    fmt::print(stderr, "gpuprof-damage: error: cannot write {}\n", output);
    return 1;
  }
  fmt::print("{{\"frames\": {}, \"changes\": {}}}\n", frames.size(), made);
  return 0;
}
