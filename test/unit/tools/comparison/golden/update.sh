#!/bin/sh
# Regenerates the diff golden files from the current code (README.md):
#   test/unit/tools/comparison/golden/update.sh BUILD_DIR
set -eu
build=$(cd "${1:?usage: update.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
ninja -C "$build" test/unit/make_golden_sidecar tools/gpuprof >/dev/null
"$build/test/unit/make_golden_sidecar" regressed "$here/regressed.gprof"
echo "wrote $here/regressed.gprof"
# The baseline a CI job would keep: the JSON report of the report tests' file.
(cd "$here" && "$build/tools/gpuprof" report --format json --limit 0 ../../golden/training.gprof) \
  >"$here/baseline.json"
echo "wrote $here/baseline.json"
# Three runs a side with CPU noise, for the noise test's case.
mkdir -p "$here/noise"
(cd "$here" && "$build/tools/gpuprof" report --format json --limit 0 regressed.gprof) \
  >"$here/noise/regressed.json.tmp"
python3 "$here/make_noise_runs.py" "$here/baseline.json" "$here/noise/regressed.json.tmp" \
  "$here/noise"
rm "$here/noise/regressed.json.tmp"
grep -v '^#' "$here/cases" | while read -r out status args; do
  [ -n "$out" ] || continue
  # ARGS are plain words: split them on purpose. A regression exits 1.
  # shellcheck disable=SC2086
  (cd "$here" && "$build/tools/gpuprof" diff $args) >"$here/$out" || true
  echo "wrote $here/$out (expected exit status $status)"
done
