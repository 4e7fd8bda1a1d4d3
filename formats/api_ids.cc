#include "formats/api_ids.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gprof {
namespace {

constexpr std::array kApis = {
#define GPROF_X(name, id, sym, display, cat, fields, domain, cbid, params, reader, runtimes) \
  ApiInfo{ApiId::name,                                                                       \
          sym,                                                                               \
          display,                                                                           \
          ApiCategory::cat,                                                                  \
          static_cast<uint32_t>(fields),                                                     \
          std::string_view(#reader) == "copy_batch"},
    GPROF_API_LIST(GPROF_X)
#undef GPROF_X
};

// Position + 1 in kApis of each id (0: unknown): api_info is called for
// every non-launch hooked call (ApiCall) and every record read, so a lookup,
// not a scan of the table.
constexpr size_t kMaxId = 256;
constexpr std::array<uint8_t, kMaxId> kIndex = [] {
  std::array<uint8_t, kMaxId> index{};
  for (size_t i = 0; i < kApis.size(); ++i)
    index[static_cast<size_t>(kApis[i].id)] = static_cast<uint8_t>(i + 1);
  return index;
}();
static_assert(kApis.size() < 255, "kIndex holds positions in a byte");

}  // namespace

const ApiInfo* api_info(ApiId id) {
  const auto raw = static_cast<size_t>(id);
  if (raw >= kMaxId || kIndex[raw] == 0) return nullptr;
  return &kApis[kIndex[raw] - 1];
}

}  // namespace gprof
