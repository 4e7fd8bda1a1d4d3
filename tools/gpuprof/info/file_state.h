// A sidecar file without a footer is one of two things: a recording still
// being written (its process is running: reading it now gives what it holds
// so far) or the remains of a process that ended without finishing it
// (killed, crashed, _exit). Users act differently on each (wait, or accept
// the loss), so every message about a file's integrity says which.
#pragma once

#include <string>

#include "tools/analysis/read/profile.h"

namespace gprof::cli {

enum class Writer {
  kFinished,  // the footer is there
  kRunning,   // this host, and the pid in its header is running with the file open
  kRecent,    // cannot tell (another host, no header), but modified moments ago
  kEnded,     // no footer, and nothing is writing it
};

Writer file_writer(const analysis::FileInfo& file);

// describe_integrity's text, told apart: "still being written (pid 1234 is
// running): incomplete (no footer, ...)", or "incomplete (no footer, ...):
// the recording process ended without finishing the file (killed or
// crashed?)".
std::string integrity_text(const analysis::FileInfo& file);

}  // namespace gprof::cli
