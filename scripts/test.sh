#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test (unit,
# golden, cli and the exhaustive `slow` conversions).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "$@"
