#!/usr/bin/env bash
# README command 2: install what is missing, build, run every test. Two builds:
#   build/      Release (the one scripts/quick.sh runs): the unit, golden and
#               slow tiers and every test that trains (label `training`:
#               libtorch's uninstrumented kernels, 4x slower under the
#               sanitizers for nothing they could see);
#   build-san/  clang with AddressSanitizer + UBSan (any report fails the
#               test) and libFuzzer's coverage, built for the x86-64 baseline
#               (SDCBENCH_ENABLE_NATIVE=OFF: the one-binary build, its SIMD
#               kernels chosen at run time), without the training workload
#               (clang cannot compile libtorch's headers as C++20): the unit
#               and cli tiers, then every fuzz target for
#               SDCBENCH_CI_FUZZ_SECONDS (default 15) on its committed corpus
#               with a fixed seed, so CI fuzzes the same inputs every time.
# With arguments, only build/ is tested, as `ctest ARGS` (scripts/test.sh -L cli).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
started=$SECONDS
stage() { echo "== test.sh: $1 ($((SECONDS - started)) s)"; }
source "$here/scripts/packages.sh"
# One apt-get call for everything: the build's packages, chromium (the
# report's browser test, tests/browser) and, for the full run, clang and its
# sanitizer runtime.
if (($#)); then
  ensure_packages "${sdcbench_packages[@]}" chromium
else
  ensure_packages "${sdcbench_packages[@]}" chromium clang libclang-rt-14-dev
fi
(($#)) || stage "the Release build"
# The full run builds in build/ only what it runs there: the benchmark
# programs of bench_main_job_*, not the others; no test whose only label is
# cli (that tier runs in build-san). CMakeLists.txt, SDCBENCH_ALL_PROGRAMS.
(($#)) || export SDCBENCH_ALL_PROGRAMS=OFF
"$here/scripts/setup.sh"
if (($#)); then
  cd "$here/build" && exec ctest --output-on-failure -j "$(nproc)" "$@"
fi
stage "tests of the Release build: unit, golden and slow tiers, and the tests that train"
(cd "$here/build" && ctest --output-on-failure -j "$(nproc)" -L "unit|golden|slow|training")

stage "clang sanitizer + fuzzer build"
export SDCBENCH_FUZZ_BUILD="$here/build-san" SDCBENCH_FUZZ_WITH_TESTS=ON
"$here/scripts/fuzz.sh" --build-only
# LeakSanitizer is on, except in the ranks of an mpirun job (tests/cli_runner.hpp
# says why).
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
stage "sanitizer build: unit and cli tiers"
(cd "$here/build-san" && ctest --output-on-failure -j "$(nproc)" -L "unit|cli")

stage "fuzz targets, ${SDCBENCH_CI_FUZZ_SECONDS:-15} s each"
SDCBENCH_FUZZ_SEED=1 "$here/scripts/fuzz.sh" "${SDCBENCH_CI_FUZZ_SECONDS:-15}"
stage "done"
