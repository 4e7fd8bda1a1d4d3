#include "tools/trace/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gprof::trace {
namespace {

// Fast compression: traces are large and JSON compresses well even so.
constexpr const char* kGzipMode = "wb1";
constexpr unsigned kGzipBuffer = 1 << 20;

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

std::unique_ptr<OutputFile> OutputFile::open(const std::string& path, std::string& error) {
  if (path == "-") {
    std::unique_ptr<OutputFile> out(new OutputFile(path, ""));
    out->plain_ = stdout;
    return out;
  }
  std::unique_ptr<OutputFile> out(new OutputFile(path, fmt::format("{}.tmp-{}", path, getpid())));
  if (path.ends_with(".gz")) {
    out->gz_ = gzopen(out->temp_.c_str(), kGzipMode);
    if (out->gz_ != nullptr) gzbuffer(out->gz_, kGzipBuffer);
  } else {
    out->plain_ = std::fopen(out->temp_.c_str(), "wb");
  }
  if (out->gz_ == nullptr && out->plain_ == nullptr) {
    error = fmt::format("cannot create {}: {}", out->temp_, errno_text());
    out->temp_.clear();  // nothing to remove
    return nullptr;
  }
  return out;
}

OutputFile::~OutputFile() {
  discard();
}

bool OutputFile::write(std::string_view bytes) {
  if (failed_ || bytes.empty()) return !failed_;
  bool ok;
  if (gz_ != nullptr)
    ok = gzwrite(gz_, bytes.data(), static_cast<unsigned>(bytes.size())) ==
         static_cast<int>(bytes.size());
  else
    ok = std::fwrite(bytes.data(), 1, bytes.size(), plain_) == bytes.size();
  if (!ok) {
    failed_ = true;
    error_ = fmt::format("cannot write {}: {}", temp_.empty() ? "stdout" : temp_, errno_text());
  }
  return ok;
}

bool OutputFile::close() {
  bool ok = true;
  if (gz_ != nullptr) {
    ok = gzclose(gz_) == Z_OK;
    gz_ = nullptr;
  } else if (plain_ != nullptr) {
    ok = plain_ == stdout ? std::fflush(stdout) == 0 : std::fclose(plain_) == 0;
    plain_ = nullptr;
  }
  if (!ok && !failed_) {
    failed_ = true;
    error_ = fmt::format("cannot write {}: {}", temp_.empty() ? "stdout" : temp_, errno_text());
  }
  return ok;
}

bool OutputFile::commit(std::string& error) {
  close();
  if (!failed_ && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    failed_ = true;
    error_ = fmt::format("cannot rename {} to {}: {}", temp_, path_, errno_text());
  }
  if (failed_) {
    error = error_;
    discard();
    return false;
  }
  temp_.clear();
  return true;
}

void OutputFile::discard() {
  close();
  if (!temp_.empty()) std::remove(temp_.c_str());
  temp_.clear();
}

}  // namespace gprof::trace
