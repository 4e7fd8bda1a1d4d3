// The reader against any bytes (docs/architecture.md §8.5: the reader is fuzzed with a
// corpus of real sidecar files). Random bytes rarely pass a frame's crc32c,
// so the target rewrites each frame's checksum before reading: mutations of
// real files then reach the frame decoder instead of stopping at the first
// checksum. Besides what the sanitizers catch, three readers must agree:
//   - read_file and read_file_pipelined (a pool of decoders, frames in
//     flight) make the same visitor calls, frame by frame;
//   - each frame's column decoder and the libprotobuf-only decoder accept
//     the same frames and deliver the same records.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "formats/crc32c.h"
#include "formats/framing.h"
#include "formats/read/frame_decoder.h"
#include "formats/read/pipelined_reader.h"
#include "formats/read/reader.h"
#include "test/unit/formats/call_recorder.h"

namespace gprof {
namespace {

struct FrameLog : Recorder {
  bool wants_more() override {
    add("frame");
    return true;
  }
};

// The input with each whole frame's checksum set to its payload's, up to the
// first length that cannot be a frame (what follows is left as it is: the
// reader must stop there).
std::string with_checksums(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  size_t at = kFilePreambleSize;
  while (at + kFrameHeaderSize <= bytes.size()) {
    auto* p = reinterpret_cast<unsigned char*>(bytes.data() + at);
    const uint32_t length = load_le32(p);
    if (length > kMaxFramePayload || length > bytes.size() - at - kFrameHeaderSize) break;
    store_le32(p + 4, crc32c(p + kFrameHeaderSize, length));
    at += kFrameHeaderSize + length;
  }
  return bytes;
}

// The frames' payloads, as the reader cuts them.
std::vector<std::string> payloads(const std::string& bytes) {
  std::vector<std::string> out;
  size_t at = kFilePreambleSize;
  while (at + kFrameHeaderSize <= bytes.size()) {
    const uint32_t length = load_le32(reinterpret_cast<const unsigned char*>(bytes.data() + at));
    if (length > kMaxFramePayload || length > bytes.size() - at - kFrameHeaderSize) break;
    out.push_back(bytes.substr(at + kFrameHeaderSize, length));
    at += kFrameHeaderSize + length;
  }
  return out;
}

[[noreturn]] void disagree(const char* what, const std::vector<std::string>& a,
                           const std::vector<std::string>& b) {
  std::fprintf(stderr, "%s: %zu calls against %zu\n", what, a.size(), b.size());
  for (size_t i = 0; i < a.size() || i < b.size(); ++i) {
    const std::string& x = i < a.size() ? a[i] : "(none)";
    const std::string& y = i < b.size() ? b[i] : "(none)";
    if (x != y) {
      std::fprintf(stderr, "first difference at call %zu:\n  %s\n  %s\n", i, x.c_str(), y.c_str());
      break;
    }
  }
  std::abort();
}

// A file the readers open by name, kept in memory.
class MemoryFile {
 public:
  explicit MemoryFile(const std::string& bytes) : fd_(::memfd_create("sidecar", MFD_CLOEXEC)) {
    if (fd_ < 0 || ::write(fd_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
      std::abort();
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

void check(const uint8_t* data, size_t size) {
  const std::string bytes = with_checksums(data, size);
  const MemoryFile file(bytes);

  FrameLog serial;
  const ReadStatus one = read_file(file.path(), serial);
  FrameLog pooled;
  const ReadStatus pool = read_file_pipelined(file.path(), pooled, 2, 3);
  if (serial.lines != pooled.lines)
    disagree("read_file vs read_file_pipelined", serial.lines, pooled.lines);
  if (one.bad_frames != pool.bad_frames || one.ignored_bytes != pool.ignored_bytes ||
      one.opened != pool.opened)
    disagree("read_file vs read_file_pipelined: status", {}, {});

  if (!one.opened) return;
  FrameDecoder columns;
  FrameDecoder protobuf;
  protobuf.set_protobuf_only(true);
  for (const std::string& payload : payloads(bytes)) {
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    Recorder a;
    Recorder b;
    ReadStatus sa;
    ReadStatus sb;
    const bool ok_a = columns.deliver(p, payload.size(), a, sa);
    const bool ok_b = protobuf.deliver(p, payload.size(), b, sb);
    if (ok_a != ok_b)
      disagree(
          ok_a ? "a frame only libprotobuf refuses" : "a frame only the column decoder refuses",
          a.lines, b.lines);
    if (a.lines != b.lines) disagree("column decoder vs libprotobuf", a.lines, b.lines);
  }
}

}  // namespace
}  // namespace gprof

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libprotobuf logs each frame it refuses; the readers count them (as gpuprof's main does).
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  gprof::check(data, size);
  return 0;
}
