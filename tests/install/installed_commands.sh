#!/usr/bin/env bash
# Every command of an installed sdcbench (tests/install/test_install.sh runs
# this with the checkout hidden). Usage: installed_commands.sh PREFIX WORK
set -euo pipefail
prefix="$1"; work="$2"; in="$work/in"; out="$work/out"
mkdir -p "$out" && cd "$out"
sb="$prefix/bin/sdcbench"; suites="$prefix/share/sdcbench/suites"
step() { echo "== $*"; }
step consumer; "$work/consumer/consumer" | grep "detectors registered" > /dev/null
step list; "$sb" list suites | grep "quick.json" > /dev/null
"$sb" list detectors > /dev/null
step run; "$sb" run "$suites/quick.json" --scale smoke --quiet --out a.json --threads 2
"$sb" run "$suites/quick.json" --scale smoke --quiet --out b.json --threads 1
step provenance; /usr/bin/python3 - a.json <<'PY'
import json, sys, os
j = json.load(open(sys.argv[1])); bad = []
def walk(x, p=""):
    if isinstance(x, dict): [walk(v, f"{p}/{k}") for k, v in x.items()]
    elif isinstance(x, list): [walk(v, f"{p}/{i}") for i, v in enumerate(x)]
    elif isinstance(x, str) and (x.startswith("/") or os.environ["SDCBENCH_EXPECT_NO"] in x): bad.append((p, x))
walk(j)
assert not bad, f"absolute paths in the result set: {bad[:5]}"
assert j["provenance"]["git_commit"] != "unknown" or j["provenance"]["git_dirty"] is None
PY
step show; "$sb" show a.json > /dev/null
step validate; "$sb" validate a.json | grep valid > /dev/null
step compare; "$sb" compare a.json b.json > compare.txt
step reproduce; "$sb" validate --reproduce a.json --out-dir again | grep "reproduced" > /dev/null
step merge; "$sb" run "$suites/quick.json" --scale smoke --quiet --shard 0/2 --out s0.json
"$sb" run "$suites/quick.json" --scale smoke --quiet --shard 1/2 --out s1.json
"$sb" merge s0.json s1.json --out merged.json && "$sb" validate merged.json | grep valid > /dev/null
step migrate; "$sb" migrate "$in/v1.json" --out v3.json
step report; "$sb" report a.json --out report > /dev/null && test -s report/index.html
step plan; "$sb" plan "$in/training.json" --job "$prefix/share/sdcbench/suites/jobs/llm_pretraining_1k.json" --replicates 20 \
  | grep "fleet llama3_405b_2024" > /dev/null
step check-gemm; "$sb" check-gemm --a "$in/a.npy" --b "$in/b.npy" --detector vabft:e_max=calibrated | grep '"flagged"' > /dev/null
step stat; "$sb" stat folding_w1 "$in/lognorms.txt" | grep '"decision"\|"flagged"' > /dev/null
"$sb" stat feature_value "$in/fv.txt" | grep alarms_at > /dev/null
step delta-crit; "$sb" delta-crit --sigma 1.5 > /dev/null
step calibrate; "$sb" calibrate --dtype fp32 --sizes 64 --trials 2 --out cal.json
step demo003; "$sb" demo003 silent_detect --steps 3 > /dev/null
# The installed LLaMA smoke configuration with 10 of its 150 pretraining and
# 10 of its 200 training steps (the command, its corpus and its checkpoint
# cache, not the training: CI's time, HACKING.md).
step train; /usr/bin/python3 - "$prefix/share/sdcbench/suites/training/llama_smoke.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["pretrain"]["steps"], c["steps"] = 10, 10
json.dump(c, open("llama_short.json", "w"))
PY
"$sb" train llama_short.json --quiet --out train.json
/usr/bin/python3 -c 'import json; d = json.load(open("train.json")); assert d["complete"] and len(d["records"]) == 10, d.keys()'
step python; PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 - "$in" <<'PY'
import sys, numpy as np, sdcbench
assert sdcbench.__file__.startswith(sys.argv[1].rsplit("/", 2)[0]), sdcbench.__file__  # the installed module
r = sdcbench.check_gemm(np.load(f"{sys.argv[1]}/a.npy"), np.load(f"{sys.argv[1]}/b.npy"), detector="vabft:e_max=calibrated")
assert r["verdict"]["flagged"] is False, r
assert sdcbench.validate("a.json") == [] and len(sdcbench.cells_table("a.json")) > 0
PY
echo "every command ran"
