// The stable numbering of intercepted CUDA APIs, shared by the shim, the
// encoder and the reader. Numbers are part of the file format: never reuse or
// renumber one; append new APIs at the end of their block.
#pragma once

#include <cstdint>
#include <string_view>

#include "formats/api_table.h"

namespace gprof {

// Which argument columns a record of an API carries in the file.
enum Field : uint32_t {
  kFieldNone = 0,
  kFieldLaunch = 1u << 0,    // kernel id, grid, block, dynamic shared memory
  kFieldStream = 1u << 1,    // stream handle (or sync target)
  kFieldBytes = 1u << 2,     // copy/set/allocation size
  kFieldAddress = 1u << 3,   // pointer allocated/freed/set, event or graph handle
  kFieldCopyKind = 1u << 4,  // cudaMemcpyKind
};

enum class ApiCategory : uint8_t { kOther, kLaunch, kCopy, kSet, kSync, kAlloc, kFree, kProfiler };

// The APIs of formats/api_table.h, as records see them.
#define GPROF_API_LIST(X) GPROF_API_TABLE(X)

enum class ApiId : uint16_t {
  kUnknown = 0,
#define GPROF_X(name, id, sym, display, cat, fields, domain, cbid, params, reader, runtimes) \
  name = id,
  GPROF_API_LIST(GPROF_X)
#undef GPROF_X
};

struct ApiInfo {
  ApiId id;
  std::string_view symbol;   // the exported symbol that was intercepted
  std::string_view display;  // the row name users know (CUPTI's name for the call)
  ApiCategory category;
  uint32_t fields;
  // One GPU record per item the call names, all with the call's correlation
  // id (cudaMemcpyBatchAsync: a memcpy record per copy, as the fake CUPTI
  // models it, test/fakes/cudart/api_memcpy.cc): the rows with the
  // table's copy_batch parameter reader.
  bool record_per_item;
};

// nullptr for ids this build does not know (a newer writer).
const ApiInfo* api_info(ApiId id);
inline uint32_t api_fields(ApiId id) {
  const ApiInfo* info = api_info(id);
  return info ? info->fields : kFieldNone;
}

}  // namespace gprof
