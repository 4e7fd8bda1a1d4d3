// local_runtime_host: a program that does not link the CUDA runtime and loads a library that does
// with dlopen(RTLD_NOW | RTLD_LOCAL), as Python imports extension modules. Usage:
// local_runtime_host EXTENSION.so [--iterations K]   (K defaults to 3)
// stdout: the extension's lines, then "failures=N"; exit status 0, or 1 when a call failed.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: local_runtime_host EXTENSION.so [--iterations K]\n");
    return 2;
  }
  int iterations = 3;
  if (argc == 4 && std::strcmp(argv[2], "--iterations") == 0) iterations = std::atoi(argv[3]);
  void* extension = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!extension) {
    std::fprintf(stderr, "local_runtime_host: %s\n", dlerror());
    return 2;
  }
  auto run = reinterpret_cast<int (*)(int)>(dlsym(extension, "local_runtime_run"));
  if (!run) {
    std::fprintf(stderr, "local_runtime_host: %s\n", dlerror());
    return 2;
  }
  const int failures = run(iterations);
  std::printf("failures=%d\n", failures);
  std::fflush(stdout);
  return failures == 0 ? 0 : 1;
}
