#!/usr/bin/env bash
# README command 1, the main job: install what is missing, build, then show
# each detector family on its own workload at small scale:
#   suites/quick.json           GEMM: V-ABFT / A-ABFT (001) vs fixed tolerances
#   suites/quick_int8.json      int8 GEMM: 004's modulus-127 check
#   suites/quick_gradient.json  gradient tensors: 000's folding test + W1
#   suites/quick_training.json  data-parallel training: the training detectors
# It prints one line per detector (detection, false alarms, localization), the
# detectors' cost beside optimized kernels measured now with bench/ (the way
# the papers measure it), writes out/quick*-full.json and the report
# out/report/index.html, and prints the path to open. Extra arguments go to
# every `sdcbench run` (e.g. --threads 1).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here"
mkdir -p out
suites=(quick quick_int8 quick_gradient quick_training)
results=()
for s in "${suites[@]}"; do
  echo "== running suites/$s.json (full preset)"
  build/sdcbench run "suites/$s.json" --scale full --out "out/$s-full.json" --quiet "$@" > /dev/null
  build/sdcbench validate "out/$s-full.json" > /dev/null
  results+=("out/$s-full.json")
done

echo
echo "== detection and false alarms, one line per detector (counts pooled over its cells)"
for r in "${results[@]}"; do
  echo
  build/sdcbench show --brief "$r"
done

# Cost the way the papers measure it: the check beside an optimized kernel in
# the same process, one thread (the campaign's own run-time column times the
# detectors as the campaign runs them: on its copies, encoding every trial).
# Only the tables are printed.
after() { awk -v m="$1" 'index($0, m) == 1 {p = 1} p'; }
echo
echo "== cost beside optimized kernels, measured now on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), one thread (bench/)"
build/bench/vabft_overhead_bench --benchmark_filter='^f32/n1024/' 2>/dev/null | after "V-ABFT check"
echo
build/bench/int8_gemm_abft_bench --benchmark_filter='^(6_512_512|16_128_1567)/' 2>/dev/null | after "int8 GEMM ABFT" |
  grep -v "shapes\. \|GEMM + requant"
build/bench/training_detectors_bench --benchmark_filter='smoke' 2>/dev/null | after "smoke"

echo
build/sdcbench report "${results[@]}" --out out/report --title "sdcbench main job" > /dev/null
echo "results: ${results[*]}"
echo "report:  $here/out/report/index.html  (open it in a browser; figures in out/report/figures/)"
