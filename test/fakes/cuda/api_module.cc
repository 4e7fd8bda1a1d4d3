// Modules and functions. Images are not parsed (module_table.h): what a profiler needs from them
// is a kernel name to launch and to see in its records.
#include <cstdio>

#include "driver_call.h"
#include "module_table.h"

namespace gprof_fake_driver {
namespace {

CUresult Load(CUmodule* module) {
  if (module == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = Modules().Load();
  return CUDA_SUCCESS;
}

bool Readable(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return false;
  std::fclose(file);
  return true;
}

}  // namespace
}  // namespace gprof_fake_driver

using gprof_fake_driver::DriverCall;

extern "C" CUresult CUDAAPI cuModuleLoad(CUmodule* module, const char* fname) {
  const cuModuleLoad_params params{module, fname};
  DriverCall call("cuModuleLoad", CUPTI_DRIVER_TRACE_CBID_cuModuleLoad, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (fname == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (!gprof_fake_driver::Readable(fname)) return call.Return(CUDA_ERROR_FILE_NOT_FOUND);
  return call.Return(gprof_fake_driver::Load(module));
}

extern "C" CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  const cuModuleLoadData_params params{module, image};
  DriverCall call("cuModuleLoadData", CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (image == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  return call.Return(gprof_fake_driver::Load(module));
}

extern "C" CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod,
                                                const char* name) {
  const cuModuleGetFunction_params params{hfunc, hmod, name};
  DriverCall call("cuModuleGetFunction", CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (hfunc == nullptr || name == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  const gprof_fake_driver::Function* function =
      gprof_fake_driver::Modules().GetFunction(hmod, name);
  if (function == nullptr) return call.Return(CUDA_ERROR_INVALID_HANDLE);
  *hfunc = reinterpret_cast<CUfunction>(const_cast<gprof_fake_driver::Function*>(function));
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  const cuModuleUnload_params params{hmod};
  DriverCall call("cuModuleUnload", CUPTI_DRIVER_TRACE_CBID_cuModuleUnload, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_driver::Modules().Unload(hmod) ? CUDA_SUCCESS
                                                               : CUDA_ERROR_INVALID_HANDLE);
}
