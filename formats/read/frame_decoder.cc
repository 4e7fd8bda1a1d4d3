#include "formats/read/frame_decoder.h"

#include <string>

#include "formats/read/column_decoder.h"
#include "formats/read/frame_delivery.h"
#include "formats/read/utf8_text.h"

namespace gprof {
namespace {

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

}  // namespace

bool FrameDecoder::decode(const uint8_t* payload, size_t size) {
  decoded_ = nullptr;
  if (!protobuf_only_ && decode_columns(payload, size, columns_, other_bytes_)) {
    ++column_frames_;
    // Parsing the other fields alone gives what parsing the whole frame
    // would have given for them: the batches are separate fields.
    other_.Clear();
    if (!other_bytes_.empty()) {
      if (!other_.ParseFromString(other_bytes_)) return false;
      make_text_valid(other_);
    }
    decoded_ = &other_;
    return true;
  }
  whole_.Clear();
  if (!whole_.ParseFromArray(payload, static_cast<int>(size))) return false;
  make_text_valid(whole_);
  columns_from_messages(whole_, columns_);
  decoded_ = &whole_;
  return true;
}

bool FrameDecoder::deliver_decoded(RecordVisitor& visitor, ReadStatus& status) const {
  return decoded_ != nullptr && deliver_frame(*decoded_, columns_, visitor, status);
}

}  // namespace gprof
