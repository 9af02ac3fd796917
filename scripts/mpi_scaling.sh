#!/usr/bin/env bash
# Scaling of a campaign over MPI processes (issue 16's measurement): the quick
# suite's full preset on 1, 2 and 4 processes (one thread each; oversubscribed
# beyond the cores), wall time, efficiency T1 / (N TN), rank 0's share of time
# in messaging, and a check that every run's cells equal the one-process run's.
# Usage: scripts/mpi_scaling.sh [SUITE] [SCALE]   (default suites/quick.json full)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
suite="${1:-$here/suites/quick.json}"
scale="${2:-full}"
bin="$here/build/sdcbench"
out="$(mktemp -d)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "suite $(basename "$suite") ($scale), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
printf "%-10s %10s %11s %16s %s\n" processes "wall (s)" efficiency "comm share (0)" "cells = 1 process"
t1=""
for n in 1 2 4; do
  start=$(date +%s.%N)
  if [ "$n" = 1 ]; then
    "$bin" run "$suite" --scale "$scale" --threads 1 --quiet --out "$out/r$n.json" > /dev/null
  else
    mpirun --oversubscribe -np "$n" "$bin" run "$suite" --scale "$scale" --threads 1 --quiet --out "$out/r$n.json" > /dev/null
  fi
  end=$(date +%s.%N)
  python3 - "$out" "$n" "$start" "$end" "${t1:-0}" <<'PY'
import json, sys
out, n, start, end, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
wall = end - start
r = json.load(open(f"{out}/r{n}.json"))
one = json.load(open(f"{out}/r1.json"))
job = r["provenance"].get("job") or {"communication_share": 0.0}
eff = 1.0 if n == 1 else t1 / (n * wall)
print(f"{n:<10} {wall:10.1f} {eff:11.2f} {100 * job['communication_share']:15.2f}% {'yes' if r['cells'] == one['cells'] else 'NO'}")
open(f"{out}/t1", "w").write(str(wall) if n == 1 else open(f"{out}/t1").read())
PY
  [ "$n" = 1 ] && t1=$(cat "$out/t1")
done
rm -rf "$out"
