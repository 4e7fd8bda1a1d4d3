// StringIds: every name the rows refer to, stored once for the whole
// database (kernel names, API names, NVTX row names, thread names), as nsys
// consolidates repeated strings. Memory grows with the distinct strings,
// not with the rows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

class StringIds {
 public:
  explicit StringIds(Database& db);
  // The id of `text`, inserting it into StringIds the first time.
  int64_t id(std::string_view text);
  size_t size() const { return ids_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  Statement insert_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
};

}  // namespace gprof::exporter
