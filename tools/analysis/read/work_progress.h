// How far a command's work after reading has got, for the progress line on a
// terminal (gpuprof's ProgressScope): formats' ReadProgress tells the bytes
// read, this the units of what comes after them (the events `gpuprof trace`
// writes, which take more than half of a large trace's time once the last
// byte is read). One display at a time, installed for the whole process.
#pragma once

#include <cstdint>

namespace gprof::analysis {

class WorkProgress {
 public:
  virtual ~WorkProgress() = default;
  // What the work comes to, as far as the command knows it: a later call
  // replaces it (a trace of several files learns each file's events as its
  // writing starts, and estimates the rest from their sizes).
  virtual void total(uint64_t units) = 0;
  // `units` more done. Called from the working thread, a few times a second
  // at most worth drawing (kWorkStep units at a time).
  virtual void done(uint64_t units) = 0;
};

// Units a worker counts before it tells the WorkProgress: a call every few
// milliseconds at millions of units a second.
inline constexpr uint64_t kWorkStep = uint64_t{1} << 16;

// Installs `progress` (nullptr: none) for every later piece of work.
void set_work_progress(WorkProgress* progress);
WorkProgress* work_progress();

}  // namespace gprof::analysis
