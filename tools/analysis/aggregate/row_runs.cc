#include "tools/analysis/aggregate/row_runs.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace gprof::analysis::row_runs {
namespace {

static_assert(std::is_trivially_copyable_v<RowValues>);

// kind, gpu_kind, name length, group length, the values, the place.
constexpr size_t kFixed = 2 + 4 + 4 + sizeof(RowValues) + sizeof(RowPlace);
static_assert(std::is_trivially_copyable_v<RowPlace>);

template <typename T>
void put(std::vector<char>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const char*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

template <typename T>
T take(const char*& at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  at += sizeof(T);
  return value;
}

}  // namespace

void encode(const PlacedRow& row, std::vector<char>& out) {
  out.push_back(static_cast<char>(row.row.kind));
  out.push_back(static_cast<char>(row.row.gpu_kind));
  put(out, static_cast<uint32_t>(row.row.name.size()));
  put(out, static_cast<uint32_t>(row.row.group.size()));
  put(out, static_cast<const RowValues&>(row.row));
  put(out, row.place);
  out.insert(out.end(), row.row.name.begin(), row.row.name.end());
  out.insert(out.end(), row.row.group.begin(), row.row.group.end());
}

size_t row_bytes(const PlacedRow& row) {
  // Names in a string's own buffer (15 characters) cost nothing more.
  const auto heap = [](const std::string& s) { return s.size() > 15 ? s.capacity() + 1 : 0; };
  return sizeof(PlacedRow) + heap(row.row.name) + heap(row.row.group);
}

RunReader::RunReader(Run run, size_t buffer) : run_(std::move(run)), buffer_(buffer) {}

void RunReader::need(size_t bytes) {
  if (end_ - begin_ >= bytes) return;
  std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  if (buffer_.size() < bytes) buffer_.resize(bytes);
  const uint64_t left = run_.bytes - read_;
  const size_t take = static_cast<size_t>(std::min<uint64_t>(left, buffer_.size() - end_));
  if (take == 0) return;
  run_.file->read(run_.offset + read_, buffer_.data() + end_, take);
  read_ += take;
  end_ += take;
}

bool RunReader::next(PlacedRow& out) {
  need(kFixed);
  if (end_ == begin_) return false;
  if (end_ - begin_ < kFixed) throw std::runtime_error("a table's spilled rows are cut short");
  const char* at = buffer_.data() + begin_;
  out.row.kind = static_cast<RowKind>(take<uint8_t>(at));
  out.row.gpu_kind = static_cast<GpuKind>(take<uint8_t>(at));
  const auto name = take<uint32_t>(at);
  const auto group = take<uint32_t>(at);
  static_cast<RowValues&>(out.row) = take<RowValues>(at);
  out.place = take<RowPlace>(at);
  need(kFixed + name + group);  // may move the buffer
  if (end_ - begin_ < kFixed + name + group)
    throw std::runtime_error("a table's spilled rows are cut short");
  at = buffer_.data() + begin_ + kFixed;
  out.row.name.assign(at, name);
  out.row.group.assign(at + name, group);
  begin_ += kFixed + name + group;
  return true;
}

}  // namespace gprof::analysis::row_runs
