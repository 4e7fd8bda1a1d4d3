#include "tools/export/string_ids.h"

namespace gprof::exporter {

StringIds::StringIds(Database& db)
    : insert_(db.handle(), "INSERT INTO StringIds (id, value) VALUES (?, ?)") {}

int64_t StringIds::id(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<int64_t>(ids_.size()) + 1;
  insert_.bind(1, id);
  insert_.bind(2, text);
  insert_.run();
  ids_.emplace(std::string(text), id);
  return id;
}

}  // namespace gprof::exporter
