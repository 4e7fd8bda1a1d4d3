#include "formats/read/reader.h"

#include <atomic>
#include <exception>
#include <vector>

#include "formats/crc32c.h"
#include "formats/read/frame_decoder.h"
#include "formats/read/frame_stream.h"

namespace gprof {
namespace {

std::atomic<ReadProgress*> g_progress{nullptr};

void read_frames(FrameStream& frames, RecordVisitor& visitor, ReadStatus& status,
                 ProgressTally& tally) {
  std::vector<unsigned char> payload;
  FrameDecoder decoder;
  uint32_t crc = 0;
  for (;;) {
    tally.frame(frames.offset());
    if (!frames.next(payload, crc)) break;
    if (crc32c(payload.data(), payload.size()) == crc &&
        decoder.deliver(payload.data(), payload.size(), visitor, status))
      ++status.frames;
    else
      ++status.bad_frames;
    if (!visitor.wants_more()) break;
  }
}

ReadStatus read_file_impl(const std::string& path, RecordVisitor& visitor, ReadProgress* progress) {
  ReadStatus status;
  ProgressTally tally(progress, status);
  FrameStream frames(path, status);
  if (!status.opened) return status;
  read_frames(frames, visitor, status, tally);
  frames.finish();
  tally.frame(frames.offset());
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

void retract_read_progress(const ReadStatus& status) {
  if (ReadProgress* progress = g_progress.load(std::memory_order_acquire))
    progress->retract(status.file_bytes, status.records + status.range_events + status.gpu_records);
}

void set_read_progress(ReadProgress* progress) {
  g_progress.store(progress, std::memory_order_release);
}

ReadProgress* read_progress() {
  return g_progress.load(std::memory_order_acquire);
}

std::optional<pb::FileHeader> read_header(const std::string& path) {
  class HeaderOnly : public RecordVisitor {
   public:
    void on_header(const pb::FileHeader& header) override { header_ = header; }
    bool wants_more() override { return false; }
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
