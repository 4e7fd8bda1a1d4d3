#include "device_properties.h"

#include <cstdio>
#include <cstring>

namespace gprof_fake {

void FillDeviceProperties(const Config& config, int device, cudaDeviceProp* prop) {
  std::memset(prop, 0, sizeof(*prop));
  std::snprintf(prop->name, sizeof(prop->name), "gprof fake GPU %d", device);
  // A stable, distinct UUID per device; tools key devices by it.
  std::snprintf(prop->uuid.bytes, sizeof(prop->uuid.bytes), "gprof-fake-%04d", device);
  prop->totalGlobalMem = config.device_memory_bytes;
  prop->sharedMemPerBlock = 48 << 10;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->memPitch = 0x7fffffff;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 64 << 10;
  prop->major = 9;
  prop->minor = 0;
  prop->textureAlignment = 512;
  prop->texturePitchAlignment = 32;
  prop->multiProcessorCount = 132;
  prop->canMapHostMemory = 1;
  prop->surfaceAlignment = 512;
  prop->concurrentKernels = 1;
  prop->pciBusID = device + 1;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = 5120;
  prop->l2CacheSize = 50 << 20;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->streamPrioritiesSupported = 1;
  prop->globalL1CacheSupported = 1;
  prop->localL1CacheSupported = 1;
  prop->sharedMemPerMultiprocessor = 228 << 10;
  prop->regsPerMultiprocessor = 65536;
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->computePreemptionSupported = 1;
  prop->cooperativeLaunch = 1;
  prop->sharedMemPerBlockOptin = 227 << 10;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->reservedSharedMemPerBlock = 1 << 10;
  prop->hostRegisterSupported = 1;
  prop->memoryPoolsSupported = 1;
  prop->clusterLaunch = 1;
  prop->deviceNumaId = -1;
  prop->hostNumaId = -1;
}

namespace {

int AttributeFromProperties(const cudaDeviceProp& prop, cudaDeviceAttr attr) {
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      return prop.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX:
      return prop.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY:
      return prop.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ:
      return prop.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX:
      return prop.maxGridSize[0];
    case cudaDevAttrMaxGridDimY:
      return prop.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ:
      return prop.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock:
      return static_cast<int>(prop.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory:
      return static_cast<int>(prop.totalConstMem);
    case cudaDevAttrWarpSize:
      return prop.warpSize;
    case cudaDevAttrMaxRegistersPerBlock:
      return prop.regsPerBlock;
    case cudaDevAttrMultiProcessorCount:
      return prop.multiProcessorCount;
    case cudaDevAttrCanMapHostMemory:
      return prop.canMapHostMemory;
    case cudaDevAttrConcurrentKernels:
      return prop.concurrentKernels;
    case cudaDevAttrPciBusId:
      return prop.pciBusID;
    case cudaDevAttrGlobalMemoryBusWidth:
      return prop.memoryBusWidth;
    case cudaDevAttrL2CacheSize:
      return prop.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      return prop.maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount:
      return prop.asyncEngineCount;
    case cudaDevAttrUnifiedAddressing:
      return prop.unifiedAddressing;
    case cudaDevAttrComputeCapabilityMajor:
      return prop.major;
    case cudaDevAttrComputeCapabilityMinor:
      return prop.minor;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      return static_cast<int>(prop.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      return prop.regsPerMultiprocessor;
    case cudaDevAttrManagedMemory:
      return prop.managedMemory;
    case cudaDevAttrConcurrentManagedAccess:
      return prop.concurrentManagedAccess;
    case cudaDevAttrCooperativeLaunch:
      return prop.cooperativeLaunch;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      return static_cast<int>(prop.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      return prop.maxBlocksPerMultiProcessor;
    case cudaDevAttrMemoryPoolsSupported:
      return prop.memoryPoolsSupported;
    default:
      return 0;
  }
}

}  // namespace

bool DeviceAttribute(const Config& config, int device, cudaDeviceAttr attr, int* value) {
  cudaDeviceProp prop;
  FillDeviceProperties(config, device, &prop);
  *value = AttributeFromProperties(prop, attr);
  // Attributes the fake has no opinion on read as 0 ("not supported").
  return attr > 0 && attr < cudaDevAttrMax;
}

}  // namespace gprof_fake
