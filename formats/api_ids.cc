#include "formats/api_ids.h"

#include <array>

namespace gprof {
namespace {

constexpr std::array kApis = {
#define GPROF_X(name, id, sym, display, cat, fields, domain, cbid, params, reader, runtimes) \
  ApiInfo{ApiId::name, sym, display, ApiCategory::cat, static_cast<uint32_t>(fields)},
    GPROF_API_LIST(GPROF_X)
#undef GPROF_X
};

}  // namespace

const ApiInfo* api_info(ApiId id) {
  for (const ApiInfo& info : kApis)
    if (info.id == id) return &info;
  return nullptr;
}

}  // namespace gprof
