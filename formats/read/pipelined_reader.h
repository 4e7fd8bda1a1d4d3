// read_file with its frames decoded on a pool of threads: `decoders`
// threads take the file's frames in turn, check and decode each into
// columns (frame_decoder.h), and the caller's thread hands them to the
// visitor in file order, with the same calls in the same order (wants_more
// after each frame) as read_file on one thread, whatever the number of
// decoders. For a visitor that costs more per record than decoding (the
// streaming report), reading one file then takes 1 + `decoders` cores.
//
// Memory: up to `depth` frames in flight, each as its bytes and its
// columns (a few bytes per value); 0 takes 2 per decoder, plus one.
// When the visitor stops early (wants_more() false), the decoders have read
// a few frames further; the returned status counts only the frames handed
// out, but a read error or damaged tail found further on is in it.
#pragma once

#include <cstddef>
#include <string>

#include "formats/read/reader.h"

namespace gprof {

ReadStatus read_file_pipelined(const std::string& path, RecordVisitor& visitor, size_t decoders = 1,
                               size_t depth = 0);

}  // namespace gprof
