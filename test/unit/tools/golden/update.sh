#!/bin/sh
# Regenerates the golden files from the current code (README.md):
#   test/unit/tools/golden/update.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: update.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
ninja -C "$build" test/unit/make_golden_sidecar tools/gpuprof >/dev/null
"$build/test/unit/make_golden_sidecar" training "$here/training.gprof"
grep -v '^#' "$here/cases" | while read -r out args; do
  [ -n "$out" ] || continue
  # ARGS are plain words: split them on purpose.
  # shellcheck disable=SC2086
  # From the folder, so that JSON's file path is "training.gprof".
  (cd "$here" && "$build/tools/gpuprof" report $args training.gprof) >"$here/$out"
  echo "wrote $here/$out"
done
# The trace of the same file (its test: test/unit/tools/trace/golden_trace_test.cc).
(cd "$here" && "$build/tools/gpuprof" trace training.gprof -o training.trace.json 2>/dev/null)
echo "wrote $here/training.trace.json"
