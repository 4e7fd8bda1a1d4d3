#include "check.h"

#include <atomic>
#include <cstdio>

namespace fake_check {
namespace {

std::atomic<int> g_failures{0};

}  // namespace

void Fail(const char* file, int line, const std::string& what) {
  ++g_failures;
  std::fprintf(stderr, "%s:%d: failed: %s\n", file, line, what.c_str());
}

int Failures() {
  return g_failures;
}

}  // namespace fake_check
