// fork() without exec after CUDA calls: the child makes calls of its own.
// Under the shim the child must never write to the parent's file.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

__global__ void touch(int* p) {
  p[threadIdx.x] = 1;
}

int main() {
  int* buffer = nullptr;
  cudaMalloc(&buffer, 1024 * sizeof(int));
  touch<<<1, 32>>>(buffer);
  cudaDeviceSynchronize();
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 5; ++i) {
      void* p = nullptr;
      cudaMalloc(&p, 4096);
      cudaFree(p);
    }
    std::printf("child: done\n");
    return 0;
  }
  int status = 0;
  waitpid(child, &status, 0);
  cudaMemset(buffer, 0, 1024 * sizeof(int));
  cudaMemset(buffer, 0, 1024 * sizeof(int));
  cudaFree(buffer);
  std::printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
