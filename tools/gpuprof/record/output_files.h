// The files a recorded run left behind. The shim names each process's file by
// expanding GPROF_OUTPUT (collector/output/output_path.h) with values only that
// process knows (its pid, its rank, its start time), so `gpuprof record`
// finds them by matching the pattern with every directive as a wildcard, and
// keeps the files that appeared or changed while the command ran.
#pragma once

#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gprof::cli {

// Why the shim would refuse `pattern` (it would then warn and write
// gprof-%p.gprof instead), or "" when it is fine: the same grammar as
// collector/output/output_path.cc (%p %h %r %t %q{VAR} %%), a bounded length, and a
// file name at the end.
std::string check_output_pattern(std::string_view pattern);

// A relative pattern anchored at `cwd` (with any '%' of cwd escaped), so that a
// program that changes directory still writes where gpuprof looks.
std::string absolute_pattern(std::string_view pattern, std::string_view cwd);

// Regular files matching `pattern`: %p as digits, %t as a start time, %h %r and
// %q{VAR} as any text without '/', literal text as itself, and an optional
// ".N" suffix (the shim's way of never overwriting a file). Each with its
// modification time. Relative patterns give paths relative to the current
// directory.
using FileTimes = std::map<std::string, timespec>;
FileTimes match_output_files(std::string_view pattern);

// The files of `after` that are not in `before` or were modified since, by path.
std::vector<std::string> written_between(const FileTimes& before, const FileTimes& after);

}  // namespace gprof::cli
