#!/usr/bin/env bash
# Installs the Debian packages sdcbench needs (if missing) and builds it into
# ./build. Used by both README commands; safe to run again.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/scripts/packages.sh"
ensure_packages "${sdcbench_packages[@]}"
# The report's charts (Vega-Lite, HACKING.md "Reports"): Node.js and the npm
# packages pinned in package-lock.json, installed again only when it changes.
command -v node > /dev/null || ensure_packages nodejs npm
lock_sum="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$here/node_modules/.sdcbench-lock" 2>/dev/null)" != "$lock_sum" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
  echo "$lock_sum" > "$here/node_modules/.sdcbench-lock"
fi
build_type="${SDCBENCH_BUILD_TYPE:-Release}"
# SDCBENCH_ALL_PROGRAMS=OFF (scripts/test.sh, CI): only the programs CI runs
# in this build (CMakeLists.txt); unset, the build keeps its cached choice (a
# new one builds them all), so scripts/quick.sh after test.sh builds nothing new.
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE="$build_type" ${SDCBENCH_ALL_PROGRAMS:+-DSDCBENCH_ALL_PROGRAMS="$SDCBENCH_ALL_PROGRAMS"} >/dev/null
cmake --build "$here/build" -j "$(nproc)" 2>&1 | grep -E "error|warning: unused|Error" || true
test -x "$here/build/sdcbench" || { echo "setup: build failed" >&2; cmake --build "$here/build" -j 1; exit 1; }
