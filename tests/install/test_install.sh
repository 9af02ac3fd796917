#!/usr/bin/env bash
# The install test (README "Install"): `cmake --install` into a temporary
# prefix, a user's program built against it with find_package(sdcbench), and
# every command of the installed binary run with the checkout and the build
# tree hidden (an empty directory mounted over each, in a private mount
# namespace), so a file read from either fails the test. Where mount
# namespaces are not allowed the commands run with both visible and the test
# instead requires that neither path appears in the installed files.
# Usage: test_install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"; build="$(cd "$2" && pwd)"
work="$(mktemp -d /tmp/sdcbench-install-XXXXXX)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/sdcbench lib/libsdcbench.so lib/cmake/sdcbench/sdcbenchConfig.cmake include/sdcbench/detectors/gemm/gemm_detector.hpp \
         share/sdcbench/suites/quick.json share/sdcbench/emax-calibration.json share/sdcbench/report/render_svg.mjs \
         share/sdcbench/node_modules/vega-lite/build/vega-lite.min.js share/sdcbench/build-info.json lib/python3/dist-packages/sdcbench/__init__.py; do
  test -e "$prefix/$f" || { echo "FAIL: cmake --install did not install $f"; exit 1; }
done
if grep -rlF --exclude-dir=include "$src" "$prefix" > "$work/leaks"; then
  echo "FAIL: installed files name the checkout $src:"; cat "$work/leaks"; exit 1
fi

# A user's program: find_package(sdcbench) and sdcbench::core.
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" > "$work/consumer.log"
cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; exit 1; }

# Inputs made while the checkout is visible: matrices, values, a version 1 set.
mkdir -p "$work/in"
/usr/bin/python3 - "$work/in" <<'PY'
import sys, numpy as np
d = sys.argv[1]; r = np.random.default_rng(1)
np.save(f"{d}/a.npy", r.standard_normal((24, 40)).astype(np.float32))
np.save(f"{d}/b.npy", r.standard_normal((40, 16)).astype(np.float32))
np.savetxt(f"{d}/lognorms.txt", r.standard_normal(200))
np.savetxt(f"{d}/fv.txt", np.abs(r.standard_normal(60)) * 1e-3)
PY
cp "$src/tests/fixtures/compare_a.json" "$work/in/v1.json"
cp "$src/results/smoke/training_sites.json" "$work/in/training.json"  # a training set with labels, for plan
cp "$src/tests/install/installed_commands.sh" "$work/"
export SDCBENCH_EXPECT_NO="$src" HOME="${HOME:-/root}"
if unshare --mount --propagation private true 2> /dev/null; then
  mkdir -p "$work/empty"
  unshare --mount --propagation private bash -c '
    mount --bind "$1" "$3" && mount --bind "$1" "$2" && test ! -e "$2/CMakeLists.txt" || { echo "FAIL: could not hide the checkout"; exit 1; }
    bash "$4/installed_commands.sh" "$5" "$4"' _ "$work/empty" "$src" "$build" "$work" "$prefix"
else
  echo "note: no mount namespace here; the commands run with the checkout visible"
  bash "$work/installed_commands.sh" "$prefix" "$work"
fi
echo "install test passed"
