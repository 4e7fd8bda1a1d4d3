#include "gpu_op_log.h"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "clock.h"

namespace gprof_fake {
namespace {

struct Observer {
  GprofFakeGpuObserver callback = nullptr;
  void* user_data = nullptr;
};

struct OpLog {
  std::mutex mu;  // guards pending and next_sequence
  // Keyed by (end time, issue order) so that delivery order is deterministic.
  std::map<std::pair<int64_t, uint64_t>, GprofFakeGpuOp> pending;
  uint64_t next_sequence = 0;
  std::mutex delivering;  // one delivery at a time keeps end-time order across threads
  // Observers are replaced rarely; old ones are leaked so that a reader never sees a freed one.
  std::atomic<const Observer*> observer{nullptr};
};

// Leaked on purpose: threads and atexit handlers may still call in while statics are destroyed.
OpLog& Log() {
  static OpLog* log = new OpLog;
  return *log;
}

thread_local bool t_delivering = false;

}  // namespace

bool GpuOpsObserved() {
  const Observer* observer = Log().observer.load(std::memory_order_acquire);
  return observer != nullptr && observer->callback != nullptr;
}

void RecordGpuOp(const GprofFakeGpuOp& op) {
  OpLog& log = Log();
  std::lock_guard lock(log.mu);
  log.pending.emplace(std::make_pair(op.end_ns, log.next_sequence++), op);
}

void DeliverCompletedGpuOps(int64_t now_ns, bool wait) {
  OpLog& log = Log();
  if (t_delivering) return;  // the observer called the runtime; its own delivery goes on
  std::unique_lock delivering(log.delivering, std::defer_lock);
  if (wait) {
    delivering.lock();
  } else if (!delivering.try_lock()) {
    return;
  }
  std::vector<GprofFakeGpuOp> ready;
  {
    std::lock_guard lock(log.mu);
    auto it = log.pending.begin();
    while (it != log.pending.end() && it->first.first <= now_ns) {
      ready.push_back(it->second);
      it = log.pending.erase(it);
    }
  }
  const Observer* observer = log.observer.load(std::memory_order_acquire);
  if (observer == nullptr || observer->callback == nullptr) return;
  t_delivering = true;
  for (const GprofFakeGpuOp& op : ready) observer->callback(&op, observer->user_data);
  t_delivering = false;
}

int64_t LatestPendingGpuOpEndNs() {
  OpLog& log = Log();
  std::lock_guard lock(log.mu);
  return log.pending.empty() ? 0 : log.pending.rbegin()->first.first;
}

void LockGpuOpLog() {
  Log().mu.lock();
}

void UnlockGpuOpLog() {
  Log().mu.unlock();
}

}  // namespace gprof_fake

extern "C" void gprof_fake_set_gpu_observer(GprofFakeGpuObserver observer, void* user_data) {
  gprof_fake::Log().observer.store(new gprof_fake::Observer{observer, user_data},
                                   std::memory_order_release);
}

extern "C" void gprof_fake_flush_gpu_ops(int wait_for_device) {
  if (wait_for_device != 0) gprof_fake::SleepUntil(gprof_fake::LatestPendingGpuOpEndNs());
  gprof_fake::DeliverCompletedGpuOps(gprof_fake::NowNs(), /*wait=*/true);
}
