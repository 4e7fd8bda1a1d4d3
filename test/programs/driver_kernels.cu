// The device code of driver_launch, compiled on its own into driver_kernels.fatbin
// (nvcc --fatbin) and loaded at run time with cuModuleLoad, as a JIT or a library loads its
// kernels. extern "C" keeps the name cuModuleGetFunction asks for unmangled.
extern "C" __global__ void scale(float* data, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
