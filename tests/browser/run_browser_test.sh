#!/usr/bin/env bash
# ctest test_report_browser: `sdcbench report` on committed smoke result sets
# (one of each kind: GEMM with the paper's rates and a threshold sweep, 000's
# histograms and Figure 5, a training set with its timeline and plan charts,
# 002's curves),
# then check_report.mjs in headless Chromium must pass; and it must FAIL on
# a copy of the page whose one chart is broken, and on a copy with a
# truncated SVG figure, so the check is shown to catch what it claims to.
# Usage: run_browser_test.sh SDCBENCH_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
bin="$1" src="$2" work="$3"
check="$src/tests/browser/check_report.mjs"
rm -rf "$work" && mkdir -p "$work"
smoke="$src/results/smoke"
"$bin" report "$smoke/vabft_table9.json" "$smoke/sdc_figure2.json" "$smoke/sdc_figure5.json" \
  "$smoke/training_sites.json" "$smoke/consistency_002.json" --out "$work/ok" --title "browser test"
(cd "$src" && node "$check" "$work/ok/index.html")
# The training set gets the goodput planner's Pareto chart per fleet preset with a rate.
grep -q 'training-sites-plan-llama3_405b_2024' "$work/ok/index.html" || { echo "FAIL: no plan chart in the report"; exit 1; }

expect_failure() {  # NAME DIR WHAT
  if (cd "$src" && node "$check" "$2/index.html" > "$work/$1.log" 2>&1); then
    echo "FAIL: check_report passed on a page with $3"; cat "$work/$1.log"; exit 1
  fi
  grep -q "$4" "$work/$1.log" || { echo "FAIL: the failure does not say '$4'"; cat "$work/$1.log"; exit 1; }
  echo "as expected, check_report failed on $3: $(grep -m1 "$4" "$work/$1.log")"
}

# One chart's mark type made unknown: vega-embed rejects it, the page logs it.
cp -r "$work/ok" "$work/broken-chart"
python3 - "$work/broken-chart/index.html" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
head, sep, specs = s.partition('id="sdcbench-specs">')
assert sep and '"type":"rule"' in specs, "the page's specifications were not found"
open(p, "w", encoding="utf-8").write(head + sep + specs.replace('"type":"rule"', '"type":"nonsense"', 1))
PY
expect_failure broken-chart "$work/broken-chart" "a chart that cannot render" "console error: chart "

# A figure file cut in half: not well-formed XML.
cp -r "$work/ok" "$work/broken-svg"
f="$(ls "$work/broken-svg/figures/"*.svg | head -1)"
head -c "$(($(stat -c %s "$f") / 2))" "$f" > "$f.cut" && mv "$f.cut" "$f"
expect_failure broken-svg "$work/broken-svg" "a truncated SVG file" "not well-formed"
rm -rf "$work"
