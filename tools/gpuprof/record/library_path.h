// Where `gpuprof record` finds libgprof.so, so that it works from a build
// tree, from an install prefix and from a relocated install alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gprof::cli {

struct LibraryLookup {
  std::optional<std::string> path;  // absolute, symlinks resolved; nullopt: not found
  std::vector<std::string> tried;   // every candidate looked at, for the error message
  std::string error;                // set when GPROF_LIB names a missing file
};

// GPROF_LIB when set (and then only it: a wrong value is an error, not a
// hint); otherwise, relative to the directory of the running gpuprof
// (/proc/self/exe): ../inject/libgprof.so (the build tree, where gpuprof is
// build/tools/gpuprof), ../lib/libgprof.so (an install prefix, and the
// Python wheel, whose package holds bin/gpuprof and lib/libgprof.so),
// ../lib/<multiarch>/libgprof.so; then the libdir gpuprof was configured to
// install into.
LibraryLookup find_libgprof();

}  // namespace gprof::cli
