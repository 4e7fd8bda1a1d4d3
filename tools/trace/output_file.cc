#include "tools/trace/output_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace gprof::trace {
namespace {

// ".gz", ".GZ" or ".Gz": gzip, as gzip and file managers tell it.
bool gzip_name(const std::string& path) {
  if (path.size() < 3) return false;
  const std::string_view end = std::string_view(path).substr(path.size() - 3);
  return end[0] == '.' && (end[1] | 0x20) == 'g' && (end[2] | 0x20) == 'z';
}

// ISA-L's level 1: traces are large, and their JSON compresses to ~8% of its
// size at level 1, as well as zlib's level 1 does (~9%) at 4.5 times its
// speed; zlib's default 6 (~7%) takes 2.4 times the CPU of its level 1.
constexpr int kGzipLevel = 1;

std::string errno_text() {
  return std::strerror(errno);
}

bool exists_not_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

// The file a symbolic link names (it may not exist yet), so that the rename
// replaces it and not the link; `path` itself otherwise.
std::string rename_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path target = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target, error)); ++hops) {
    const fs::path next = fs::read_symlink(target, error);
    if (error) return path;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return target.string();
}

}  // namespace

std::unique_ptr<OutputFile> OutputFile::open(const std::string& path, std::string& error,
                                             unsigned threads) {
  if (path == "-") {
    std::unique_ptr<OutputFile> out(new OutputFile(path, ""));
    out->plain_ = stdout;
    if (threads > 1) out->background_ = std::make_unique<BackgroundWriter>(out->plain_);
    return out;
  }
  const bool direct = exists_not_regular(path);
  const std::string target = direct ? path : rename_target(path);
  std::unique_ptr<OutputFile> out(
      new OutputFile(target, direct ? "" : fmt::format("{}.tmp-{}", target, getpid())));
  const std::string& name = direct ? target : out->temp_;
  out->plain_ = std::fopen(name.c_str(), "wb");
  if (out->plain_ != nullptr && gzip_name(path))
    out->gz_ = std::make_unique<ParallelGzip>(out->plain_, threads, kGzipLevel);
  else if (out->plain_ != nullptr && threads > 1)
    out->background_ = std::make_unique<BackgroundWriter>(out->plain_);
  if (out->plain_ == nullptr) {
    error = fmt::format("cannot create {}: {}", name, errno_text());
    out->temp_.clear();  // nothing to remove
    return nullptr;
  }
  return out;
}

std::string OutputFile::written_name() const {
  if (!temp_.empty()) return temp_;
  return path_ == "-" ? "stdout" : path_;
}

OutputFile::~OutputFile() {
  discard();
}

bool OutputFile::write(std::string_view bytes) {
  if (failed_ || bytes.empty()) return !failed_;
  bool ok;
  if (gz_)
    ok = gz_->write(bytes);
  else if (background_)
    ok = background_->write(bytes);
  else
    ok = std::fwrite(bytes.data(), 1, bytes.size(), plain_) == bytes.size();
  if (!ok) {
    failed_ = true;
    error_ = fmt::format("cannot write {}: {}", written_name(), errno_text());
  }
  return ok;
}

bool OutputFile::close() {
  bool ok = true;
  if (gz_) {
    ok = failed_ || gz_->finish();
    gz_.reset();
  }
  if (background_) {
    ok = failed_ || background_->finish();
    const int error = errno;  // what the thread's join may not keep
    background_.reset();
    errno = error;
  }
  if (plain_ != nullptr) {
    const bool closed = plain_ == stdout ? std::fflush(stdout) == 0 : std::fclose(plain_) == 0;
    ok = ok && closed;
    // Reported below, with the path: gpuprof's own check of stdout at exit
    // (cli/diagnostics.h) need not say it again.
    if (plain_ == stdout) std::clearerr(stdout);
    plain_ = nullptr;
  }
  if (!ok && !failed_) {
    failed_ = true;
    error_ = fmt::format("cannot write {}: {}", written_name(), errno_text());
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
