// How the trace names its processes and threads, as a Perfetto user scans
// them: the program ("train.py" rather than "python3") and its rank. Viewers
// show the pid beside a process's name and the tid beside a thread's, so the
// names do not repeat them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "formats/gprof.pb.h"

namespace gprof::trace {

// The program a header describes: the script of a Python interpreter
// ("python3 train.py" -> "train.py"), else argv[0] or the executable,
// without directories; "process" when the header says nothing.
std::string program_name(const pb::FileHeader& header);

// "train.py", or "rank 0: train.py"; with " (pid 1234)" when the trace gives
// the process another number than its pid (`renumbered`), which is then the
// number a viewer shows.
std::string process_title(const pb::FileHeader& header, bool renumbered);

// "GPU 0: NVIDIA H100 80GB HBM3 (pid 1234)"; "GPU 0 (pid 1234)" when the
// header does not name the device. A GPU's trace process has a number of
// its own, so the pid of the process that used it is part of its name.
std::string gpu_title(const pb::FileHeader& header, uint32_t device);

// The NVTX name of the thread (nvtxNameOsThread), else "main thread" for
// the thread whose tid is the pid, else "thread 1234".
std::string thread_title(uint32_t tid, uint32_t pid, const std::map<uint32_t, std::string>& names);

// argv joined by spaces.
std::string command_line(const pb::FileHeader& header);

}  // namespace gprof::trace
