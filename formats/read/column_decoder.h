// Decodes a frame's payload (pb::Frame) without libprotobuf for the part
// that holds the records: the packed columns of ApiCalls, GpuActivities,
// Ranges and ExternalCorrelations go straight from the frame's bytes into
// FrameColumns. The rest of the frame (header, strings, footer, CUPTI status,
// devices, fields of a newer writer) is copied out as bytes for libprotobuf:
// it is small, and its messages are what the visitor receives.
//
// It reads the frames gprof's encoders write, and refuses any other shape
// (an unpacked column, a field given twice, an unknown field inside a batch,
// a group, a malformed varint). A refused frame is left whole to libprotobuf:
// what libprotobuf accepts is then delivered, what it rejects is a bad frame,
// exactly as before this decoder existed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/read/frame_columns.h"

namespace gprof {

// Fills `columns` with the frame's batches and `other` with the bytes of its
// other fields (each field whole, in frame order: parsing them as a pb::Frame
// gives that frame without its batches). False: refused (see above); the
// outputs are then unspecified.
bool decode_columns(const uint8_t* payload, size_t size, FrameColumns& columns, std::string& other);

}  // namespace gprof
