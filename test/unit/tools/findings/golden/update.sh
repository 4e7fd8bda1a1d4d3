#!/bin/sh
# Regenerates the analyze golden files from the current code (README.md):
#   test/unit/tools/findings/golden/update.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: update.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
ninja -C "$build" test/unit/make_golden_sidecar tools/gpuprof >/dev/null
"$build/test/unit/make_golden_sidecar" analyze "$here/analyze.gprof"
echo "wrote $here/analyze.gprof"
grep -v '^#' "$here/cases" | while read -r out status args; do
  [ -n "$out" ] || continue
  # ARGS are plain words: split them on purpose. --fail-on exits 1.
  # shellcheck disable=SC2086
  (cd "$here" && "$build/tools/gpuprof" analyze $args) >"$here/$out" || true
  echo "wrote $here/$out (expected exit status $status)"
done
