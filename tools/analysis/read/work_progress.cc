#include "tools/analysis/read/work_progress.h"

#include <atomic>

namespace gprof::analysis {
namespace {

std::atomic<WorkProgress*> g_progress{nullptr};

}  // namespace

void set_work_progress(WorkProgress* progress) {
  g_progress.store(progress);
}

WorkProgress* work_progress() {
  return g_progress.load();
}

}  // namespace gprof::analysis
