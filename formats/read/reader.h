// Streaming reader of sidecar files. Memory use does not grow with the
// number of records: frames are parsed one at a time and handed to a visitor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/gprof.pb.h"
#include "formats/record.h"

namespace gprof {

struct ApiBatch;
struct GpuBatch;
struct RangeBatch;

// What the reader saw of one file's integrity.
struct ReadStatus {
  bool opened = false;    // false: error says why (missing, not a gprof file, newer)
  bool complete = false;  // a footer frame was read
  uint32_t format_version = 0;
  uint64_t frames = 0;         // good frames, header and footer included
  uint64_t bad_frames = 0;     // bad checksum, unparsable payload or columns: skipped
  uint64_t ignored_bytes = 0;  // a trailing partial frame (killed process)
  uint64_t file_bytes = 0;
  uint64_t records = 0;       // API records delivered to the visitor
  uint64_t gpu_records = 0;   // GPU activity records delivered
  uint64_t range_events = 0;  // NVTX events delivered
  // Records in batches that name an ApiId this build does not know (a newer
  // writer): their optional columns cannot be split, so the batch is skipped.
  uint64_t skipped_records = 0;
  uint32_t first_unknown_api = 0;  // one such id, for the message
  // One line, without the file name: why !opened, or a fatal mid-file
  // problem (a read error, a frame length that cannot be trusted).
  std::string error;
};

class RecordVisitor {
 public:
  virtual ~RecordVisitor() = default;
  virtual void on_header(const pb::FileHeader& /*header*/) {}
  virtual void on_string(const pb::StringEntry& /*entry*/) {}
  // `record.tid` is filled from the batch; `kind` is kApi.
  virtual void on_api(const ApiRecord& /*record*/) {}
  virtual void on_gpu(const GpuRecord& /*record*/) {}
  // `event.tid` is filled from the batch; `kind` is kRange.
  virtual void on_range(const RangeEvent& /*event*/) {}
  // A frame's batches, one call each, in frame order (record_batches.h).
  // By default each is split into the record calls above; a visitor that
  // overrides one reads that kind's records from the columns instead,
  // without a call per record.
  virtual void on_api_batch(const ApiBatch& batch);
  virtual void on_gpu_batch(const GpuBatch& batch);
  virtual void on_range_batch(const RangeBatch& batch);
  // CUPTI correlation id -> the external id an API record carries (when gprof
  // could not subscribe to CUPTI).
  virtual void on_external_correlation(uint64_t /*correlation*/, uint64_t /*external_id*/) {}
  virtual void on_cupti(const pb::CuptiStatus& /*status*/) {}
  // The process's devices, known once CUDA ran (after the header).
  virtual void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& /*devices*/) {}
  virtual void on_footer(const pb::Footer& /*footer*/) {}
  // Asked after each frame, good or bad, once its records were delivered
  // (the end of a frame, for a visitor that works frame by frame): false
  // stops the reading there (the status then describes the part read).
  virtual bool wants_more() { return true; }
};

// Reads `path` from start to end, calling `visitor` in file order. Never
// throws for bad input: problems are described in the returned status.
ReadStatus read_file(const std::string& path, RecordVisitor& visitor);

// Told how far read_file has got, for a progress display (gpuprof's, on a
// terminal): after each frame, the bytes it took and the records it held;
// when a file ends (read to its end or stopped early), the bytes of it not
// yet counted, so that a file's calls add up to its size. May be called from
// any thread that reads; read_header does not call it.
class ReadProgress {
 public:
  virtual ~ReadProgress() = default;
  virtual void advanced(uint64_t bytes, uint64_t records) = 0;
  // What read_file counted for a file is taken back: the caller reads it
  // again another way (the report's stream falling back to memory).
  virtual void retract(uint64_t /*bytes*/, uint64_t /*records*/) {}
};

// Installs `progress` for every later read_file in the process (nullptr:
// none). Not owned.
void set_read_progress(ReadProgress* progress);
// The installed progress (nullptr: none), for readers of other shapes
// (pipelined_reader.h) that report as read_file does.
ReadProgress* read_progress();

// Takes back from the installed progress what read_file counted for the
// file whose read returned `status`.
void retract_read_progress(const ReadStatus& status);

// The file's header (its first frame) without reading further; nullopt when
// the file cannot be read or has no header.
std::optional<pb::FileHeader> read_header(const std::string& path);

// "complete", or "incomplete (N bytes after the last whole frame ignored)", etc.
std::string describe_integrity(const ReadStatus& status);

}  // namespace gprof
