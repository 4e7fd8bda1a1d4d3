#include "tools/gpuprof/record/library_path.h"

#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

// From tools/meson.build: the install libdir and the Debian multiarch triple.
#ifndef GPROF_INSTALL_LIBDIR
#error "GPROF_INSTALL_LIBDIR must be defined by the build"
#endif
#ifndef GPROF_MULTIARCH
#define GPROF_MULTIARCH ""
#endif

namespace gprof::cli {
namespace {

constexpr std::string_view kLibraryName = "libgprof.so";

std::optional<std::string> resolve(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return std::nullopt;
  // A directory named libgprof.so is not a library.
  struct stat info {};
  if (stat(resolved, &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return std::string(resolved);
}

std::string self_directory() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  std::string path(exe, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

LibraryLookup find_libgprof() {
  LibraryLookup lookup;
  if (const char* explicit_path = std::getenv("GPROF_LIB"); explicit_path && *explicit_path) {
    lookup.tried.emplace_back(explicit_path);
    lookup.path = resolve(explicit_path);
    if (!lookup.path)
      lookup.error = fmt::format("GPROF_LIB={} does not name a readable file", explicit_path);
    return lookup;
  }
  const std::string self = self_directory();
  if (!self.empty()) {
    lookup.tried.push_back(fmt::format("{}/../inject/{}", self, kLibraryName));
    lookup.tried.push_back(fmt::format("{}/../lib/{}", self, kLibraryName));
    if (std::string_view(GPROF_MULTIARCH).size() > 0)
      lookup.tried.push_back(fmt::format("{}/../lib/{}/{}", self, GPROF_MULTIARCH, kLibraryName));
  }
  lookup.tried.push_back(fmt::format("{}/{}", GPROF_INSTALL_LIBDIR, kLibraryName));
  for (const std::string& candidate : lookup.tried) {
    lookup.path = resolve(candidate);
    if (lookup.path) return lookup;
  }
  return lookup;
}

}  // namespace gprof::cli
