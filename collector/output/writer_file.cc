// The file the writer owns: opened when its thread starts, written frame by
// frame, and checked before each write to still be ours.
#include "collector/output/writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "collector/output/output_path.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "formats/framing.h"

namespace gprof {

bool Writer::open_file() {
  ProcessInfo& info = info_;
  collect_process_info(info);
  PathVariables vars;
  vars.pid = info.pid;
  vars.host = info.host;
  if (const char* rank = rank_from_environment(secure_getenv)) vars.rank = rank;
  vars.start_time = info.start_time;
  vars.getenv_fn = secure_getenv;
  char expanded[sizeof path_];
  if (!expand_output_pattern(config_.output_pattern, vars, expanded, sizeof expanded)) {
    GPROF_WARN(
        "GPROF_OUTPUT='%s' is not a valid pattern (%%p %%h %%r %%t %%q{VAR} %%%%); "
        "using gprof-%%p.gprof",
        config_.output_pattern);
    snprintf(expanded, sizeof expanded, "gprof-%u.gprof", info.pid);
  }
  fd_ = create_output_file(expanded, config_.file_mode, path_, sizeof path_);
  if (fd_ < 0) {
    GPROF_WARN("cannot create '%s': %s; this process is not profiled", expanded, strerror(errno));
    stop_recording();
    return false;
  }
  fd_ = move_to_high_descriptor(fd_);
  identify(fd_, identity_);
  // Reopened by this path if the program takes the descriptor away: absolute,
  // since daemons chdir("/") before they close every descriptor.
  absolute_path(path_, reopen_path_, sizeof reopen_path_);
  GPROF_INFO("recording to %s", path_);
  return true;
}

void Writer::write_frame(const ByteBuffer& payload) {
  unsigned char header[8];
  encode_frame_header(payload, header);
  write_bytes(header, sizeof header);
  write_bytes(payload.data(), payload.size());
  if (!write_failed_) ++frames_;
}

// The program may have closed our descriptor (a daemon closing every one from
// 3 up) or put another file at its number (dup2() of /dev/null): writing
// there would lose the records, or worse, write into the program's file.
bool Writer::descriptor_is_ours() const {
  FileIdentity now;
  return fd_ >= 0 && identify(fd_, now) && now.device == identity_.device &&
         now.inode == identity_.inode;
}

void Writer::close_output() {
  if (descriptor_is_ours()) close(fd_);
  fd_ = -1;
}

bool Writer::output_is_ours() {
  if (descriptor_is_ours()) return true;
  // Not ours any more: the number belongs to the program now, never close it,
  // unless the program dup2()ed /dev/null over it (over every descriptor,
  // say) and left none free to reopen with: that number was ours, and
  // /dev/null there serves nobody.
  int fd = reopen_output_file(reopen_path_, identity_);
  int error = errno;
  if (fd < 0 && (error == EMFILE || error == ENFILE) && is_dev_null(fd_)) {
    close(fd_);
    fd = reopen_output_file(reopen_path_, identity_);
    error = errno;
  }
  errno = error;
  if (fd < 0) {
    GPROF_WARN(
        "the program closed or replaced the descriptor of '%s', which cannot be reopened "
        "(%s); recording stopped, the program continues",
        path_, strerror(errno));
    fd_ = -1;
    return false;
  }
  fd_ = fd;
  if (output_reopens_++ == 0)
    GPROF_INFO("the program closed or replaced the descriptor of '%s'; reopened it", path_);
  return true;
}

void Writer::write_bytes(const void* data, size_t size) {
  if (write_failed_ || fd_ < 0) return;
  if (!output_is_ours()) {
    write_failed_ = true;
    stop_recording();
    return;
  }
  int error = write_all_at(fd_, data, size, offset_);
  if (error) {
    write_failed_ = true;
    GPROF_WARN("writing '%s' failed: %s; recording stopped, the program continues", path_,
               strerror(error));
    stop_recording();
    return;
  }
  offset_ += size;
}

}  // namespace gprof
