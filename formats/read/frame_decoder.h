// Turns the payload of one checksummed frame into visitor calls: the
// hand-written column decoder (formats/read/column_decoder.h) for the records,
// libprotobuf for the rest, and libprotobuf for the whole frame when the
// column decoder refuses it. Holds the buffers frames reuse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/gprof.pb.h"
#include "formats/read/frame_columns.h"
#include "formats/read/reader.h"

namespace gprof {

class FrameDecoder {
 public:
  // Delivers the frame and returns true, or delivers nothing and returns
  // false (a bad frame: unparsable payload, or columns that do not fit).
  bool deliver(const uint8_t* payload, size_t size, RecordVisitor& visitor, ReadStatus& status) {
    return decode(payload, size) && deliver_decoded(visitor, status);
  }

  // deliver() in two steps, which may run on different threads (the
  // parallel reader decodes frames on a pool and delivers them in order):
  // decode() parses the payload into this decoder's buffers (false: a bad
  // frame), deliver_decoded() hands out what the last decode() parsed
  // (false: a bad frame, nothing delivered). The payload is not referred
  // to after decode().
  bool decode(const uint8_t* payload, size_t size);
  bool deliver_decoded(RecordVisitor& visitor, ReadStatus& status) const;

  // Tests: decode every frame with libprotobuf alone, as the reader did
  // before the column decoder (the reference the tests compare with).
  void set_protobuf_only(bool on) { protobuf_only_ = on; }
  // Frames whose columns were decoded without libprotobuf.
  uint64_t column_frames() const { return column_frames_; }

 private:
  FrameColumns columns_;
  std::string other_bytes_;
  pb::Frame other_;                     // the fields that are not batches
  pb::Frame whole_;                     // a frame left to libprotobuf
  const pb::Frame* decoded_ = nullptr;  // other_ or whole_, after a decode()
  uint64_t column_frames_ = 0;
  bool protobuf_only_ = false;
};

}  // namespace gprof
