// fork_exec: a CUDA program that starts another process, as a launcher or a data-loader
// worker does: fork() then exec of itself with --child, and waits for it. Under the preload each
// process writes its own file, unless gprof is told to record only the first one
// (gpuprof record --no-children).
//   parent: cudaMalloc x1, 1 launch of `touch`, cudaDeviceSynchronize x1, [child runs], cudaFree x1
//   child (exec'd): cudaMalloc x2, cudaFree x2
// Exits with the child's exit status (0). Usage: fork_exec
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

__global__ void touch(int* p) {
  p[threadIdx.x] = 1;
}

namespace {

int Child() {
  for (int i = 0; i < 2; ++i) {
    void* p = nullptr;
    if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess) return 1;
  }
  std::printf("fork_exec: child done\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--child") == 0) return Child();
  int* buffer = nullptr;
  cudaMalloc(&buffer, 32 * sizeof(int));
  touch<<<1, 32>>>(buffer);
  cudaDeviceSynchronize();
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    execl("/proc/self/exe", argv[0], "--child", static_cast<char*>(nullptr));
    std::perror("fork_exec: exec");
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  cudaFree(buffer);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  std::printf("fork_exec: parent done, child exited %d\n", code);
  return code;
}
