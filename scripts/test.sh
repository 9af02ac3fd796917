#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test. Three builds:
#   build/       Release (the one scripts/quick.sh runs): the unit, golden and
#                slow tiers and test_training_campaign;
#   build-asan/  g++ with AddressSanitizer + UBSan at -O1 (any report fails the
#                test), built for the x86-64 baseline (SDCBENCH_ENABLE_NATIVE=OFF:
#                the one-binary build, its SIMD kernels chosen at run time): the
#                unit and cli tiers, the fuzz corpora replayed among them;
#   build-fuzz/  clang + libFuzzer (scripts/fuzz.sh): every fuzz target for
#                SDCBENCH_CI_FUZZ_SECONDS (default 15) on its committed corpus,
#                with a fixed seed, so CI fuzzes the same inputs every time.
# With arguments, only build/ is tested, as `ctest ARGS` (scripts/test.sh -L cli).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
source "$here/scripts/packages.sh"
ensure_packages chromium  # the report's browser test (tests/browser)
if (($#)); then
  cd "$here/build" && exec ctest --output-on-failure -j "$(nproc)" "$@"
fi
ensure_packages clang libclang-rt-14-dev
started=$SECONDS
stage() { echo "== test.sh: $1 ($((SECONDS - started)) s)"; }

stage "Release build: unit, golden and slow tiers, and the training campaigns"
(cd "$here/build" && ctest --output-on-failure -j "$(nproc)" -L "unit|golden|slow")

stage "sanitizer build (ASan + UBSan)"
cmake -S "$here" -B "$here/build-asan" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DSDCBENCH_ENABLE_SANITIZERS=ON -DSDCBENCH_ENABLE_BENCH=OFF -DSDCBENCH_ENABLE_NATIVE=OFF >/dev/null
cmake --build "$here/build-asan" -j "$(nproc)" 2>&1 | grep -E "error|Error" || true
# LeakSanitizer is on, except in the ranks of an mpirun job (tests/cli_runner.hpp
# says why).
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# test_training_campaign (the four training suites' smoke presets, mostly
# libtorch's own uninstrumented kernels) takes 400 s here and 100 s in Release:
# it is labelled slow too, and runs in the Release stage instead.
stage "sanitizer build: unit and cli tiers"
(cd "$here/build-asan" && ctest --output-on-failure -j "$(nproc)" -L "unit|cli" -E "^test_training_campaign$")

stage "fuzz targets, ${SDCBENCH_CI_FUZZ_SECONDS:-15} s each"
SDCBENCH_FUZZ_SEED=1 "$here/scripts/fuzz.sh" "${SDCBENCH_CI_FUZZ_SECONDS:-15}"
stage "done"
