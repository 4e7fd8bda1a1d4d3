#include "collector/output/output_path.h"

#include <cstdio>
#include <cstring>

namespace gprof {
namespace {

bool put(char* out, size_t size, size_t& at, const char* text, size_t n) {
  if (at + n >= size) return false;
  memcpy(out + at, text, n);
  at += n;
  return true;
}

bool put(char* out, size_t size, size_t& at, const char* text) {
  return put(out, size, at, text, strlen(text));
}

}  // namespace

bool expand_output_pattern(const char* pattern, const PathVariables& vars, char* out,
                           size_t out_size) {
  if (out_size == 0) return false;
  size_t at = 0;
  for (const char* p = pattern; *p; ++p) {
    if (*p != '%') {
      if (!put(out, out_size, at, p, 1)) return false;
      continue;
    }
    char directive = *++p;
    bool ok = true;
    switch (directive) {
      case 'p': {
        char pid[16];
        snprintf(pid, sizeof pid, "%u", vars.pid);
        ok = put(out, out_size, at, pid);
        break;
      }
      case 'h':
        ok = put(out, out_size, at, vars.host);
        break;
      case 'r':
        ok = put(out, out_size, at, vars.rank);
        break;
      case 't':
        ok = put(out, out_size, at, vars.start_time);
        break;
      case '%':
        ok = put(out, out_size, at, "%");
        break;
      case 'q': {
        if (p[1] != '{') return false;
        const char* name = p + 2;
        const char* close = strchr(name, '}');
        if (!close || close == name || close - name >= 256) return false;
        char variable[256];
        memcpy(variable, name, static_cast<size_t>(close - name));
        variable[close - name] = '\0';
        const char* value = vars.getenv_fn ? vars.getenv_fn(variable) : nullptr;
        ok = put(out, out_size, at, value ? value : "");
        p = close;
        break;
      }
      default:
        return false;  // includes the NUL after a trailing '%'
    }
    if (!ok) return false;
  }
  out[at] = '\0';
  return true;
}

const char* rank_from_environment(GetEnv getenv_fn) {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = getenv_fn(name);
    if (value && *value) return value;
  }
  return nullptr;
}

}  // namespace gprof
