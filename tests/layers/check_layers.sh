#!/usr/bin/env bash
# The layering rule of HACKING.md ("The folders"): a file includes only its
# own layer or lower ones, and folders side by side in one layer do not
# include each other. Lowest first:
#   0 foundation/                       formats, SIMD, I/O, random streams, ground truth, scoring, kernels
#   1 injectors/                        fault models, sites, schedules, inject()
#   2 protocol/                         episode, views, workload and detector interfaces, the fault plan
#   3 workloads/ | detectors/           side by side; inside workloads/training/,
#                                       the data-parallel trainer (trainer/) is below
#                                       the fault machinery: it includes neither it,
#                                       nor injectors/, nor another workload
#   4 harness/results/                  the result-set format
#   5 harness/plan/                     the goodput planner's model over result sets (sdcbench plan, the report's Pareto chart)
#   6 harness/campaign/ | harness/report/   side by side
#   7 harness/services/                 what the commands and the Python module compute (check-gemm,
#                                       stat, demo003, calibrate, the monitor): typed in, structs out
#   8 harness/cli/ | python/            side by side: the command line and the Python module, two
#                                       thin front ends over the services, neither includes the other
# Prints every include that breaks it (file:line: include) and exits 1 if any.
set -uo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root"
layer_of() {
  case "$1" in
    foundation/*) echo 0 foundation ;;
    injectors/*) echo 1 injectors ;;
    protocol/*) echo 2 protocol ;;
    workloads/*) echo 3 workloads ;;
    detectors/*) echo 3 detectors ;;
    harness/results/*) echo 4 results ;;
    harness/plan/*) echo 5 plan ;;
    harness/campaign/*) echo 6 campaign ;;
    harness/report/*) echo 6 report ;;
    harness/services/*) echo 7 services ;;
    harness/cli/*) echo 8 cli ;;
    python/*) echo 8 python ;;
    *) echo "- -" ;;
  esac
}
bad=0 checked=0
while IFS= read -r file; do
  read -r fl fname < <(layer_of "$file")
  [ "$fl" = "-" ] && { echo "$file: in no layer (add its folder to tests/layers/check_layers.sh and HACKING.md)"; bad=1; continue; }
  while IFS=: read -r line inc; do
    target="${inc#*\"}"; target="${target%\"*}"
    read -r tl tname < <(layer_of "$target")
    [ "$tl" = "-" ] && continue  # a third-party or generated header
    checked=$((checked + 1))
    up_from_trainer=0
    case "$file" in workloads/training/trainer/*)
      case "$target" in workloads/training/trainer/*) ;; workloads/* | injectors/*) up_from_trainer=1 ;; esac ;;
    esac
    if [ "$tl" -gt "$fl" ] || { [ "$tl" -eq "$fl" ] && [ "$tname" != "$fname" ]; } || [ "$up_from_trainer" = 1 ]; then
      echo "$file:$line: includes $target (layer $tl $tname from layer $fl $fname)"
      bad=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" | sed 's/^\([0-9]*\):.*#[[:space:]]*include[[:space:]]*/\1:/')
done < <(git ls-files -- 'foundation/*' 'injectors/*' 'protocol/*' 'workloads/*' 'detectors/*' 'harness/*' 'python/*' | grep -E '\.(hpp|cpp|h)$')
if [ "$checked" -lt 100 ]; then echo "layers: only $checked includes checked: the file list is wrong"; exit 1; fi
[ "$bad" -eq 0 ] && echo "layers: $checked includes, none goes up a layer or sideways"
exit "$bad"
