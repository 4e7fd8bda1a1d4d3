#include "formats/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <vector>

#include "formats/api_ids.h"
#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/utf8_text.h"

namespace gprof {
namespace {

std::atomic<ReadProgress*> g_progress{nullptr};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads up to `size` bytes; fewer only at end of file or on a read error.
size_t read_fully(std::FILE* f, void* data, size_t size) {
  size_t done = 0;
  auto* p = static_cast<unsigned char*>(data);
  while (done < size) {
    size_t n = std::fread(p + done, 1, size - done, f);
    if (n == 0) break;
    done += n;
  }
  return done;
}

// Bytes left in a stream whose size is unknown (a pipe).
uint64_t count_rest(std::FILE* f) {
  unsigned char sink[4096];
  uint64_t total = 0;
  while (size_t n = std::fread(sink, 1, sizeof sink, f)) total += n;
  return total;
}

// Entries each optional column must hold for one batch.
struct ColumnCounts {
  int launch = 0;
  int stream = 0;
  int bytes = 0;
  int address = 0;
  int copy_kind = 0;
};

enum class BatchCheck { kOk, kUnknownApi, kCorrupt };

BatchCheck check_batch(const pb::ApiCalls& batch, uint32_t* unknown_api) {
  const int n = batch.api_size();
  if (batch.start_delta_size() != n || batch.duration_size() != n || batch.result_size() != n ||
      batch.correlation_size() != n)
    return BatchCheck::kCorrupt;
  ColumnCounts want;
  for (int i = 0; i < n; ++i) {
    const uint32_t raw = batch.api(i);
    const ApiInfo* info = raw <= 0xFFFF ? api_info(static_cast<ApiId>(raw)) : nullptr;
    if (info == nullptr) {
      *unknown_api = raw;
      return BatchCheck::kUnknownApi;
    }
    if (info->fields & kFieldLaunch) ++want.launch;
    if (info->fields & kFieldStream) ++want.stream;
    if (info->fields & kFieldBytes) ++want.bytes;
    if (info->fields & kFieldAddress) ++want.address;
    if (info->fields & kFieldCopyKind) ++want.copy_kind;
  }
  const bool launch_ok =
      batch.kernel_size() == want.launch && batch.grid_x_size() == want.launch &&
      batch.grid_y_size() == want.launch && batch.grid_z_size() == want.launch &&
      batch.block_x_size() == want.launch && batch.block_y_size() == want.launch &&
      batch.block_z_size() == want.launch && batch.shared_mem_size() == want.launch;
  if (!launch_ok || batch.stream_size() != want.stream || batch.bytes_size() != want.bytes ||
      batch.address_size() != want.address || batch.copy_kind_size() != want.copy_kind ||
      (batch.runtime_size() != 0 && batch.runtime_size() != n))
    return BatchCheck::kCorrupt;
  return BatchCheck::kOk;
}

// Splits a checked batch back into records, in call order.
void deliver_batch(const pb::ApiCalls& batch, RecordVisitor& visitor) {
  ColumnCounts at;
  uint64_t start = batch.base_ns();
  for (int i = 0; i < batch.api_size(); ++i) {
    ApiRecord r{};
    r.kind = RecordKind::kApi;
    r.api = static_cast<ApiId>(batch.api(i));
    r.tid = batch.tid();
    start += static_cast<uint64_t>(batch.start_delta(i));  // wraps like the writer's subtraction
    r.start_ns = start;
    r.end_ns = start + batch.duration(i);
    r.result = batch.result(i);
    r.correlation = batch.correlation(i);
    const uint32_t fields = api_fields(r.api);
    if (fields & kFieldLaunch) {
      const int k = at.launch++;
      r.kernel = batch.kernel(k);
      r.grid = {batch.grid_x(k), batch.grid_y(k), batch.grid_z(k)};
      r.block = {batch.block_x(k), batch.block_y(k), batch.block_z(k)};
      r.shared_mem = batch.shared_mem(k);
    }
    if (fields & kFieldStream) r.stream = batch.stream(at.stream++);
    if (fields & kFieldBytes) r.bytes = batch.bytes(at.bytes++);
    if (fields & kFieldAddress) r.address = batch.address(at.address++);
    if (fields & kFieldCopyKind)
      r.copy_kind = static_cast<uint8_t>(batch.copy_kind(at.copy_kind++));
    if (batch.runtime_size() != 0) r.runtime = static_cast<uint8_t>(batch.runtime(i));
    visitor.on_api(r);
  }
}

bool check_gpu_batch(const pb::GpuActivities& batch) {
  const int n = batch.kind_size();
  if (batch.start_delta_size() != n || batch.duration_size() != n ||
      batch.correlation_size() != n || batch.device_size() != n || batch.stream_size() != n ||
      batch.graph_size() != n || batch.graph_node_size() != n)
    return false;
  int launch = 0, bytes = 0, copy = 0, target = 0, detail = 0;
  for (int i = 0; i < n; ++i) {
    // A kind this build does not know makes the optional columns unsplittable.
    if (!known_gpu_kind(batch.kind(i))) return false;
    const uint32_t fields = gpu_fields(static_cast<GpuKind>(batch.kind(i)));
    if (fields & kGpuFieldLaunch) ++launch;
    if (fields & kGpuFieldBytes) ++bytes;
    if (fields & kGpuFieldCopy) ++copy;
    if (fields & kGpuFieldTarget) ++target;
    if (fields & kGpuFieldDetail) ++detail;
  }
  return batch.kernel_size() == launch && batch.grid_x_size() == launch &&
         batch.grid_y_size() == launch && batch.grid_z_size() == launch &&
         batch.block_x_size() == launch && batch.block_y_size() == launch &&
         batch.block_z_size() == launch && batch.shared_mem_size() == launch &&
         batch.registers_size() == launch && batch.bytes_size() == bytes &&
         batch.copy_kind_size() == copy && batch.src_kind_size() == copy &&
         batch.peer_device_size() == copy && batch.dst_kind_size() == target &&
         batch.detail_size() == detail;
}

void deliver_gpu_batch(const pb::GpuActivities& batch, RecordVisitor& visitor) {
  int launch = 0, bytes = 0, copy = 0, target = 0, detail = 0;
  uint64_t start = batch.base_ns();
  for (int i = 0; i < batch.kind_size(); ++i) {
    GpuRecord r{};
    r.kind = static_cast<GpuKind>(batch.kind(i));
    start += static_cast<uint64_t>(batch.start_delta(i));
    r.start_ns = start;
    r.end_ns = start + batch.duration(i);
    r.correlation = batch.correlation(i);
    r.device = batch.device(i);
    r.stream = batch.stream(i);
    r.graph = batch.graph(i);
    r.graph_node = batch.graph_node(i);
    const uint32_t fields = gpu_fields(r.kind);
    if (fields & kGpuFieldLaunch) {
      const int k = launch++;
      r.kernel = batch.kernel(k);
      r.grid = {batch.grid_x(k), batch.grid_y(k), batch.grid_z(k)};
      r.block = {batch.block_x(k), batch.block_y(k), batch.block_z(k)};
      r.shared_mem = batch.shared_mem(k);
      r.registers = batch.registers(k);
    }
    if (fields & kGpuFieldBytes) r.bytes = batch.bytes(bytes++);
    if (fields & kGpuFieldCopy) {
      r.copy_kind = static_cast<uint8_t>(batch.copy_kind(copy));
      r.src_kind = static_cast<uint8_t>(batch.src_kind(copy));
      r.peer_device = batch.peer_device(copy);
      ++copy;
    }
    if (fields & kGpuFieldTarget) r.dst_kind = static_cast<uint8_t>(batch.dst_kind(target++));
    if (fields & kGpuFieldDetail) r.detail = batch.detail(detail++);
    visitor.on_gpu(r);
  }
}

bool check_ranges(const pb::Ranges& batch) {
  const int n = batch.op_size();
  return batch.time_delta_size() == n && batch.name_size() == n && batch.domain_size() == n &&
         batch.category_size() == n && batch.range_id_size() == n && batch.color_size() == n &&
         batch.payload_size() == n && (batch.seq_size() == 0 || batch.seq_size() == n) &&
         (batch.op_id_size() == 0 || batch.op_id_size() == n);
}

void deliver_ranges(const pb::Ranges& batch, RecordVisitor& visitor) {
  uint64_t time = batch.base_ns();
  for (int i = 0; i < batch.op_size(); ++i) {
    RangeEvent e{};
    e.kind = RecordKind::kRange;
    e.op = static_cast<RangeOp>(batch.op(i));
    e.tid = batch.tid();
    time += static_cast<uint64_t>(batch.time_delta(i));
    e.time_ns = time;
    e.name = batch.name(i);
    e.domain = batch.domain(i);
    e.category = batch.category(i);
    e.range_id = batch.range_id(i);
    e.color = batch.color(i);
    e.payload = batch.payload(i);
    // Empty columns: no event of the batch had one (or an older writer).
    if (batch.seq_size() != 0) e.seq = batch.seq(i);
    if (batch.op_id_size() != 0) e.op_id = batch.op_id(i);
    visitor.on_range(e);
  }
}

// The `bytes` fields of gprof.proto that hold the host's text.
void make_text_valid(pb::Frame& frame) {
  if (frame.has_header()) {
    pb::FileHeader& header = *frame.mutable_header();
    make_valid_utf8(*header.mutable_host());
    for (std::string& arg : *header.mutable_argv()) make_valid_utf8(arg);
    make_valid_utf8(*header.mutable_rank());
    make_valid_utf8(*header.mutable_exe());
    for (pb::ConfigEntry& entry : *header.mutable_config()) make_valid_utf8(*entry.mutable_value());
  }
  if (frame.has_cupti()) {
    pb::CuptiStatus& cupti = *frame.mutable_cupti();
    make_valid_utf8(*cupti.mutable_library());
    make_valid_utf8(*cupti.mutable_reason());
    make_valid_utf8(*cupti.mutable_injection());
  }
  for (pb::StringEntry& entry : *frame.mutable_strings()) make_valid_utf8(*entry.mutable_value());
  for (pb::Device& device : *frame.mutable_devices()) {
    make_valid_utf8(*device.mutable_name());
    make_valid_utf8(*device.mutable_pci_bus_id());
  }
}

// Checks a whole frame before handing any of it out: a frame is delivered
// entirely or counted bad, never half.
bool deliver_frame(const pb::Frame& frame, RecordVisitor& visitor, ReadStatus& status) {
  std::vector<BatchCheck> checks;
  checks.reserve(static_cast<size_t>(frame.api_calls_size()));
  uint32_t unknown = 0;
  for (const pb::ApiCalls& batch : frame.api_calls()) {
    checks.push_back(check_batch(batch, &unknown));
    if (checks.back() == BatchCheck::kCorrupt) return false;
  }
  for (const pb::GpuActivities& batch : frame.gpu_activities())
    if (!check_gpu_batch(batch)) return false;
  for (const pb::ExternalCorrelations& pairs : frame.external_correlations())
    if (pairs.correlation_size() != pairs.external_id_size()) return false;
  for (const pb::Ranges& batch : frame.ranges())
    if (!check_ranges(batch)) return false;
  if (frame.has_header()) visitor.on_header(frame.header());
  if (frame.has_cupti()) visitor.on_cupti(frame.cupti());
  if (frame.devices_size() != 0) visitor.on_devices(frame.devices());
  for (const pb::StringEntry& entry : frame.strings()) visitor.on_string(entry);
  for (int i = 0; i < frame.api_calls_size(); ++i) {
    const pb::ApiCalls& batch = frame.api_calls(i);
    if (checks[static_cast<size_t>(i)] == BatchCheck::kUnknownApi) {
      status.skipped_records += static_cast<uint64_t>(batch.api_size());
      if (status.first_unknown_api == 0) status.first_unknown_api = unknown;
      continue;
    }
    deliver_batch(batch, visitor);
    status.records += static_cast<uint64_t>(batch.api_size());
  }
  for (const pb::Ranges& batch : frame.ranges()) {
    deliver_ranges(batch, visitor);
    status.range_events += static_cast<uint64_t>(batch.op_size());
  }
  for (const pb::GpuActivities& batch : frame.gpu_activities()) {
    deliver_gpu_batch(batch, visitor);
    status.gpu_records += static_cast<uint64_t>(batch.kind_size());
  }
  for (const pb::ExternalCorrelations& pairs : frame.external_correlations())
    for (int i = 0; i < pairs.correlation_size(); ++i)
      visitor.on_external_correlation(pairs.correlation(i), pairs.external_id(i));
  if (frame.has_footer()) {
    visitor.on_footer(frame.footer());
    status.complete = true;
  }
  return true;
}

// Passes each frame's bytes and records to the installed ReadProgress.
class ProgressTally {
 public:
  ProgressTally(ReadProgress* progress, const ReadStatus& status)
      : progress_(progress), status_(status) {}
  void frame(uint64_t offset) {
    if (progress_ == nullptr) return;
    const uint64_t records = status_.records + status_.range_events + status_.gpu_records;
    progress_->advanced(offset - bytes_, records - records_);
    bytes_ = offset;
    records_ = records;
  }
  // The rest of the file: a partial last frame, an early stop, a bad length.
  void end(uint64_t file_bytes) {
    if (progress_ != nullptr && file_bytes > bytes_) progress_->advanced(file_bytes - bytes_, 0);
    bytes_ = std::max(bytes_, file_bytes);
  }

 private:
  ReadProgress* progress_;
  const ReadStatus& status_;
  uint64_t bytes_ = 0;
  uint64_t records_ = 0;
};

// Returns the offset after the last whole frame.
uint64_t read_frames(std::FILE* f, bool sized, RecordVisitor& visitor, ReadStatus& status,
                     ProgressTally& tally) {
  uint64_t offset = kFilePreambleSize;
  std::vector<unsigned char> payload;
  pb::Frame frame;
  for (;;) {
    tally.frame(offset);
    unsigned char head[kFrameHeaderSize];
    const size_t got = read_fully(f, head, sizeof head);
    if (got == 0) break;
    if (got < sizeof head) {
      status.ignored_bytes += got;
      break;
    }
    const uint32_t length = load_le32(head);
    const uint32_t crc = load_le32(head + 4);
    const uint64_t end = offset + kFrameHeaderSize;
    const uint64_t remaining =
        !sized ? UINT64_MAX : (status.file_bytes > end ? status.file_bytes - end : 0);
    if (length > kMaxFramePayload) {
      // The length itself is garbage: nothing after it can be located.
      const uint64_t rest = sized ? remaining : count_rest(f);
      status.ignored_bytes += got + rest;
      status.error = "frame at offset " + std::to_string(offset) + " claims " +
                     std::to_string(length) + " bytes; the rest of the file (" +
                     std::to_string(got + rest) + " bytes) was ignored";
      return offset;
    }
    if (length > remaining) {  // a partial last frame: the process was killed
      status.ignored_bytes += got + remaining;
      return offset;
    }
    payload.resize(length);
    const size_t body = read_fully(f, payload.data(), length);
    if (body < length) {
      status.ignored_bytes += got + body;
      if (std::ferror(f)) status.error = std::string("read error: ") + std::strerror(errno);
      return offset;
    }
    offset += kFrameHeaderSize + length;
    if (crc32c(payload.data(), length) != crc) {
      ++status.bad_frames;
      if (!visitor.wants_more()) break;
      continue;
    }
    frame.Clear();
    if (!frame.ParseFromArray(payload.data(), static_cast<int>(length))) {
      ++status.bad_frames;
      if (!visitor.wants_more()) break;
      continue;
    }
    make_text_valid(frame);
    if (!deliver_frame(frame, visitor, status)) {
      ++status.bad_frames;
      if (!visitor.wants_more()) break;
      continue;
    }
    ++status.frames;
    if (!visitor.wants_more()) break;
  }
  if (std::ferror(f)) status.error = std::string("read error: ") + std::strerror(errno);
  return offset;
}

ReadStatus read_file_impl(const std::string& path, RecordVisitor& visitor, ReadProgress* progress) {
  ReadStatus status;
  ProgressTally tally(progress, status);
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    status.error = std::strerror(errno);
    return status;
  }
  struct stat st {};
  bool sized = false;
  if (fstat(fileno(f.get()), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      status.error = "is a directory";
      return status;
    }
    if (S_ISREG(st.st_mode)) {
      sized = true;
      status.file_bytes = static_cast<uint64_t>(st.st_size);
    }
  }
  unsigned char preamble[kFilePreambleSize];
  const size_t got = read_fully(f.get(), preamble, sizeof preamble);
  if (got == 0) {
    status.error = std::ferror(f.get()) ? std::string("read error: ") + std::strerror(errno)
                                        : "empty file, not a gprof sidecar file";
    return status;
  }
  if (got < sizeof(kFileMagic) || std::memcmp(preamble, kFileMagic, sizeof(kFileMagic)) != 0) {
    status.error = "not a gprof sidecar file (bad magic)";
    return status;
  }
  if (got < sizeof preamble) {
    status.error = "truncated gprof file (" + std::to_string(got) + " bytes, no format version)";
    return status;
  }
  status.format_version = load_le32(preamble + sizeof(kFileMagic));
  if (status.format_version == 0) {
    status.error = "invalid format version 0";
    return status;
  }
  if (status.format_version > kFormatVersion) {
    status.error = "format version " + std::to_string(status.format_version) +
                   " is newer than this gpuprof supports (" + std::to_string(kFormatVersion) +
                   "); upgrade gpuprof";
    return status;
  }
  status.opened = true;
  const uint64_t consumed = read_frames(f.get(), sized, visitor, status, tally);
  tally.frame(consumed);
  if (!sized) status.file_bytes = consumed + status.ignored_bytes;  // a pipe: what was read
  tally.end(status.file_bytes);
  return status;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

namespace {

ReadStatus read_file_reporting(const std::string& path, RecordVisitor& visitor,
                               ReadProgress* progress) {
  try {
    return read_file_impl(path, visitor, progress);
  } catch (const std::exception& e) {  // std::bad_alloc, or a visitor that threw
    ReadStatus status;
    status.error = std::string("unexpected error: ") + e.what();
    return status;
  }
}

}  // namespace

ReadStatus read_file(const std::string& path, RecordVisitor& visitor) {
  return read_file_reporting(path, visitor, g_progress.load(std::memory_order_acquire));
}

void set_read_progress(ReadProgress* progress) {
  g_progress.store(progress, std::memory_order_release);
}

std::optional<pb::FileHeader> read_header(const std::string& path) {
  class HeaderOnly : public RecordVisitor {
   public:
    void on_header(const pb::FileHeader& header) override { header_ = header; }
    bool wants_more() const override { return false; }
    std::optional<pb::FileHeader> header_;
  } visitor;
  read_file_reporting(path, visitor, nullptr);
  return visitor.header_;
}

std::string describe_integrity(const ReadStatus& status) {
  if (!status.opened) return "unreadable: " + status.error;
  std::string out = status.complete ? "complete" : "incomplete (no footer";
  if (!status.complete) {
    if (status.ignored_bytes > 0)
      out += ", " + plural(status.ignored_bytes, "byte", "bytes") +
             " after the last whole frame ignored";
    out += ")";
  } else if (status.ignored_bytes > 0) {
    out += ", " + plural(status.ignored_bytes, "trailing byte", "trailing bytes") + " ignored";
  }
  if (status.bad_frames > 0)
    out += ", " + plural(status.bad_frames, "bad frame", "bad frames") + " skipped";
  if (status.skipped_records > 0) {
    out += ", " + plural(status.skipped_records, "record", "records") +
           " of unknown APIs skipped (API id " + std::to_string(status.first_unknown_api) +
           "; written by a newer gprof?)";
  }
  if (!status.error.empty()) out += "; " + status.error;
  return out;
}

}  // namespace gprof
