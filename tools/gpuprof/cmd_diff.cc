// Placeholder until gpuprof diff lands.
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
void add_diff_command(CLI::App& /*app*/, int& /*exit_status*/) {}
}  // namespace gprof::cli
