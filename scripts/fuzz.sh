#!/usr/bin/env bash
# Fuzzing (HACKING.md, "Fuzzing"): builds the libFuzzer targets of tests/fuzz
# with clang, ASan and UBSan into build-fuzz, then runs each for SECONDS
# (default 600) on its committed corpus, as many at once as there are cores.
# New inputs go to build-fuzz/corpus/NAME (not committed: copy the ones worth keeping into
# tests/fuzz/corpus/NAME); a crash, leak, sanitizer report or hang (-timeout
# 10 s) is written to build-fuzz/findings/NAME/ and fails the script.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 30 npy journal
# SDCBENCH_FUZZ_SEED=N fixes libFuzzer's seed (scripts/test.sh does, for CI).
#   scripts/fuzz.sh --build-only     configure and build everything, run nothing
# SDCBENCH_FUZZ_BUILD=DIR builds there; SDCBENCH_FUZZ_WITH_TESTS=ON builds the
# tests too (scripts/test.sh: one clang build serves the sanitizer tests and
# the fuzzers).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${SDCBENCH_FUZZ_BUILD:-$here/build-fuzz}"  # where to build (and keep the new inputs)
CC=clang CXX=clang++ cmake -S "$here" -B "$out" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DSDCBENCH_ENABLE_FUZZ=ON -DSDCBENCH_ENABLE_SANITIZERS=ON -DSDCBENCH_ENABLE_NATIVE=OFF -DSDCBENCH_ENABLE_TRAINING=OFF -DSDCBENCH_ENABLE_PYTHON=OFF \
  -DSDCBENCH_ENABLE_TESTS="${SDCBENCH_FUZZ_WITH_TESTS:-OFF}" -DSDCBENCH_ENABLE_BENCH=OFF >/dev/null
if [ "${1:-}" = "--build-only" ]; then
  cmake --build "$out" -j "$(nproc)" 2>&1 | grep -E "error|Error" || true
  exit 0
fi
seconds="${1:-600}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(suite npy safetensors result journal stat training_inputs kernels_diff)
cmake --build "$out" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") 2>&1 | grep -E "error|Error" || true
# The targets run side by side, one a core (each libFuzzer run is one
# thread), so CI's fuzzing takes SECONDS per core's share of the targets.
run_target() {
  local t="$1" log="$out/findings/$1/log.txt"
  mkdir -p "$out/corpus/$t" "$out/findings/$t"
  if "$out/tests/fuzz/fuzz_$t" "$out/corpus/$t" "$here/tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -max_len=65536 -print_final_stats=1 ${SDCBENCH_FUZZ_SEED:+-seed=$SDCBENCH_FUZZ_SEED} -artifact_prefix="$out/findings/$t/" >"$log" 2>&1; then
    local runs cov
    runs=$(grep -oE "Done [0-9]+ runs" "$log" | grep -oE "[0-9]+" || echo "?")
    cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo "?")
    echo "fuzz $t: ${seconds} s, $runs runs, coverage $cov edges, corpus $(ls "$out/corpus/$t" | wc -l) new inputs, no finding"
  else
    echo "fuzz $t: FINDING (see $log and $out/findings/$t/)"
    grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==" "$log" | head -5 || true
    return 1
  fi
}
jobs_max="$(nproc)"
mkdir -p "$out/findings"
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  rm -f "$out/findings/$t.summary" "$out/findings/$t.ok"
  (run_target "$t" > "$out/findings/$t.summary" 2>&1 && touch "$out/findings/$t.ok") &
done
wait
status=0
for t in "${targets[@]}"; do  # each target's summary, in the order given
  cat "$out/findings/$t.summary"
  [ -e "$out/findings/$t.ok" ] || status=1
done
exit $status
