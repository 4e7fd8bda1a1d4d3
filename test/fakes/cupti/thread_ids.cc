#include "thread_ids.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>

namespace gprof_fake_cupti {
namespace {

std::atomic<CUpti_ActivityThreadIdType> g_type{CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT};

}  // namespace

void SetThreadIdType(CUpti_ActivityThreadIdType type) {
  g_type.store(type, std::memory_order_relaxed);
}

CUpti_ActivityThreadIdType ThreadIdType() {
  return g_type.load(std::memory_order_relaxed);
}

uint32_t CurrentThreadId() {
  if (ThreadIdType() == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) {
    return static_cast<uint32_t>(gettid());
  }
  // What the real CUPTI reports by default: pthread_self(), truncated to the record's field.
  return static_cast<uint32_t>(pthread_self());
}

}  // namespace gprof_fake_cupti
