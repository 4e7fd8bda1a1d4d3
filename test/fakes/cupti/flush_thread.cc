#include "flush_thread.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gprof_fake_cupti {
namespace {

struct Worker {
  std::mutex mu;
  std::condition_variable changed;
  uint32_t period_ms = 0;
  void (*deliver_gpu_ops)(int) = nullptr;
  bool started = false;
};

// Leaked: the detached thread may still run while the process exits.
Worker& GetWorker() {
  static Worker* worker = new Worker;
  return *worker;
}

void Run() {
  // Signals are the application's business, not this thread's.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  Worker& worker = GetWorker();
  std::unique_lock lock(worker.mu);
  for (;;) {
    if (worker.period_ms == 0) {
      worker.changed.wait(lock);
      continue;
    }
    const auto period = std::chrono::milliseconds(worker.period_ms);
    if (worker.changed.wait_for(lock, period) == std::cv_status::no_timeout) continue;
    void (*deliver)(int) = worker.deliver_gpu_ops;
    lock.unlock();
    if (deliver != nullptr) deliver(0);
    lock.lock();
  }
}

}  // namespace

void SetFlushPeriod(uint32_t milliseconds, void (*deliver_gpu_ops)(int wait_for_device)) {
  Worker& worker = GetWorker();
  std::lock_guard lock(worker.mu);
  worker.period_ms = milliseconds;
  worker.deliver_gpu_ops = deliver_gpu_ops;
  if (milliseconds != 0 && !worker.started) {
    worker.started = true;
    std::thread(Run).detach();
  }
  worker.changed.notify_all();
}

}  // namespace gprof_fake_cupti
