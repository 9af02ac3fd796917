#!/usr/bin/env bash
# ctest test_layers: the source tree keeps the layering rule, and the check
# catches an include that goes up a layer and one that goes sideways (the
# Python module into the command line among them).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/check_layers.sh" "$here/../.." || exit 1
planted="$(mktemp -d)"
trap 'rm -rf "$planted"' EXIT
plant() {  # FILE INCLUDE: a tree of many good includes and one planted one
  rm -rf "$planted/t" && mkdir -p "$planted/t/foundation/io" "$planted/t/detectors" "$planted/t/workloads/training/trainer" "$planted/t/harness/cli" \
    "$planted/t/harness/services" "$planted/t/python"
  for i in $(seq 1 120); do echo '#include "foundation/io/a.hpp"' >> "$planted/t/harness/cli/ok.cpp"; done
  echo "#include \"$2\"" > "$planted/t/$1"
  (cd "$planted/t" && git init -q && git add -A) || exit 1
  if "$here/check_layers.sh" "$planted/t" > "$planted/out" 2>&1; then echo "not caught: $1 including $2"; exit 1; fi
  grep -q "$1:1: includes $2" "$planted/out" || { cat "$planted/out"; exit 1; }
}
plant foundation/io/x.hpp harness/cli/main.hpp   # up
plant detectors/d.cpp workloads/w.hpp            # sideways
plant workloads/training/trainer/t.cpp workloads/training/training_sites.hpp  # trainer over the fault machinery
plant python/bind_x.cpp harness/cli/file_commands.hpp   # sideways: the two front ends
plant harness/services/s.cpp harness/cli/main.hpp       # up: a service over a front end
echo "the planted violations were caught"
