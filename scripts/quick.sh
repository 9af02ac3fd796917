#!/usr/bin/env bash
# README command 1: install what is missing, build, run the quick campaign
# (suites/quick.json at its full preset), print its table and the result path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here"
mkdir -p out
build/sdcbench run suites/quick.json --scale full --out out/quick-full.json "$@"
build/sdcbench validate out/quick-full.json
