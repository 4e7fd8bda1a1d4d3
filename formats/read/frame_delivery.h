// Hands one frame to a RecordVisitor: the messages of its other fields, then
// its batches split back into records (docs/architecture.md §4.2).
#pragma once

#include "formats/gprof.pb.h"
#include "formats/read/frame_columns.h"
#include "formats/read/reader.h"

namespace gprof {

// Checks the whole frame before handing any of it out: a frame is delivered
// entirely, or not at all and false returned (a bad frame). `other` holds the
// frame's header, CUPTI status, devices, strings and footer (its batch
// fields, if any, are not looked at); `columns` its batches. Counts the
// records delivered, and those of batches naming an API this build does not
// know, into `status`.
bool deliver_frame(const pb::Frame& other, const FrameColumns& columns, RecordVisitor& visitor,
                   ReadStatus& status);

}  // namespace gprof
