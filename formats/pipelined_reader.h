// read_file on two threads: one decodes the file's frames, the caller's
// hands their records to the visitor, in the same order and with the same
// calls (wants_more after each frame) as read_file on one thread. For a
// visitor that costs more per record than decoding (the streaming report),
// reading one file then takes two cores.
//
// Memory: up to `depth` decoded frames in flight (~100 bytes per record of
// a frame). When the visitor stops early (wants_more() false), the decoding
// thread has read up to `depth` frames further: the returned status counts
// them, so a caller that stops early must not rely on its counts (the
// streaming report then reads the file again anyway).
#pragma once

#include <cstddef>
#include <string>

#include "formats/reader.h"

namespace gprof {

ReadStatus read_file_pipelined(const std::string& path, RecordVisitor& visitor, size_t depth = 2);

}  // namespace gprof
