#include "tools/gen/workload.h"

#include "tools/gen/generator.h"

namespace gprof::gen {

uint64_t minimum_records(const Settings& settings) {
  // Thread names, allocations and frees, the last step's close.
  return settings.threads + 2 * (kAllocations + 1) + 1;
}

bool write_rank(const Settings& settings, std::FILE* out, Counts& counts, std::string& error) {
  counts = Counts{};
  Generator generator(settings, out, counts);
  return generator.run(error);
}

}  // namespace gprof::gen
