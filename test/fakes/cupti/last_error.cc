#include "last_error.h"

namespace gprof_fake_cupti {
namespace {

thread_local CUptiResult t_last_error = CUPTI_SUCCESS;

}  // namespace

CUptiResult Finish(CUptiResult result) {
  if (result != CUPTI_SUCCESS) t_last_error = result;
  return result;
}

CUptiResult TakeLastError() {
  const CUptiResult result = t_last_error;
  t_last_error = CUPTI_SUCCESS;
  return result;
}

}  // namespace gprof_fake_cupti
