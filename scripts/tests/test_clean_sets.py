"""The scripts' pooled clean counts count each clean set once (issue 66), on
small doctored result sets: schema 4's clean_set, version 3's derived id,
and sets whose clean trials are drawn per cell (always counted). Needs no
build: `python3 -m pytest scripts/tests`."""
import copy
import json
import pathlib
import re
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parent.parent
TRAINING_FAULT_AXES = ["site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin"]


def cell(label, config, steps, site, bit, clean, attribution_clean):
    """A training cell of detector `label`; clean = (trials, flagged, steps, flagged steps)."""
    trials, flagged, steps_n, steps_flagged = clean
    axes = {"bit": bit, "config": config, "lifetime": "transient", "site": site, "steps": steps}
    return {
        "axes": axes,
        "key": ";".join(f"{k}={v}" for k, v in axes.items()),
        "detector": {"label": label},
        "skipped": None,
        "clean_set": f"config={config};steps={steps}",
        "faulty": {"trials": 4, "skipped": 0, "detected": 2, "outcomes": "5", "localization": {"right": 1, "trials": 2}},
        "clean": {"trials": trials, "flagged": flagged, "steps": {"trials": steps_n, "flagged": steps_flagged}},
        "workload_metrics": {
            "faulty.attribution_right.count": 4.0, "faulty.attribution_right.mean": 0.5,
            "clean.attribution_right.count": float(attribution_clean[1]),
            "clean.attribution_right.mean": attribution_clean[0] / attribution_clean[1],
        },
    }


def training_set(config="small", labels=("d", "q")):
    """Per label: cells A and B (bits exp1, exp2 at grad:all) and D (exp1 at
    bucket) share the clean set config=...;steps=6 (16 episodes, 2 flagged;
    96 steps, 3 flagged); C (steps=12) has its own (8, 1; 48, 1). Label q's
    clean sides flag nothing."""
    cells = []
    for label in labels:
        quiet = label == "q"
        six = (16, 0, 96, 0) if quiet else (16, 2, 96, 3)
        twelve = (8, 0, 48, 0) if quiet else (8, 1, 48, 1)
        cells += [
            cell(label, config, "6", "grad:all", "exp1", six, (1, 2)),   # A
            cell(label, config, "6", "grad:all", "exp2", six, (1, 2)),   # B
            cell(label, config, "12", "grad:all", "exp1", twelve, (1, 1)),  # C
            cell(label, config, "6", "bucket", "exp1", six, (1, 2)),     # D
        ]
    return {
        "schema": "sdcbench.result/4",
        "suite": {"workload": "training", "fault_axes": TRAINING_FAULT_AXES, "detectors": [{"label": l} for l in labels]},
        "provenance": {"cpu": "test"},
        "cells": cells,
        "recordings": [],
    }


def version3(rs, workload="training"):
    """The same set as version 3 wrote it: no clean_set, no suite.fault_axes."""
    rs = copy.deepcopy(rs)
    rs["schema"] = "sdcbench.result/3"
    rs["suite"]["workload"] = workload
    del rs["suite"]["fault_axes"]
    for c in rs["cells"]:
        del c["clean_set"]
    return rs


def per_cell(rs):
    """The same set with clean trials drawn per cell (clean_set null)."""
    rs = copy.deepcopy(rs)
    rs["suite"]["fault_axes"] = []
    for c in rs["cells"]:
        c["clean_set"] = None
    return rs


def run(tmp_path, script, *sets, args=()):
    paths = []
    for i, rs in enumerate(sets):
        paths.append(tmp_path / f"set{i}.json")
        paths[-1].write_text(json.dumps(rs))
    p = subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, paths), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def row(text, label):
    """The cells of the first table row of `label`."""
    line = next(l for l in text.splitlines() if l.startswith(f"| {label} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def section(text, title):
    return text.split(title, 1)[1].split("\n## ", 1)[0]


# training_checks_table.py: false alarms per 1000 clean steps, pooled per check over every cell.

@pytest.mark.parametrize("make", [lambda: training_set(), lambda: version3(training_set())], ids=["schema4", "version3"])
def test_training_checks_table_counts_each_clean_set_once(tmp_path, make):
    out = run(tmp_path, "training_checks_table.py", make())
    # the set of steps=6 (96 steps, 3 flagged) once, plus steps=12's (48, 1): not 3 x 96 + 48
    assert row(out, "d")[-1].endswith("(4/144)")
    assert row(out, "q")[-1].endswith("(0/144)")  # per label: q's sets are counted for q too


def test_training_checks_table_adds_per_cell_clean_trials(tmp_path):
    for rs in (per_cell(training_set()), version3(training_set(), workload="gemm")):
        out = run(tmp_path, "training_checks_table.py", rs)
        assert row(out, "d")[-1].endswith("(10/336)")  # every cell's clean side: 3 x (96, 3) + (48, 1)


def test_training_checks_table_counts_a_groups_clean_alarms_once(tmp_path):
    out = section(run(tmp_path, "training_checks_table.py", training_set()), "## Rerun label")
    # columns: grad:all transient (A, B, C), bucket transient (D). Faulty 2/4 per cell;
    # clean: grad:all has the steps=6 set once (1/2) and steps=12's (1/1); bucket
    # has the steps=6 set again, once in its own column.
    assert [r.split(" ")[0] for r in row(out, "d")[1:]] == ["8/15", "3/6"]


def test_training_checks_table_where_keeps_the_cells_of_one_axis_value(tmp_path):
    out = run(tmp_path, "training_checks_table.py", training_set(), args=["--where", "steps=12"])
    # cell C alone: one column (grad:all transient), its faulty 4 trials and its clean set (48, 1)
    assert row(out, "d")[1:] == ["2/4 [15, 85] %", "20.8 [3.7, 109.0] (1/48)"]
    p = subprocess.run([sys.executable, str(SCRIPTS / "training_checks_table.py"), str(tmp_path / "set0.json"), "--where", "nope=1"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "--where" in p.stderr


# sets_diff_table.py --clean: false-alarm rates per row, side by side.

def diff_rows(out):
    lines = [l for l in out.splitlines() if l.startswith("| ")]
    return [[c.strip() for c in l.strip("|").split("|")] for l in lines[1:]], lines[0]


@pytest.mark.parametrize("v3", [False, True], ids=["schema4", "version3"])
def test_sets_diff_table_prints_each_clean_set_once(tmp_path, v3):
    a, b = training_set("small"), training_set("medium")
    if v3:
        a, b = version3(a), version3(b)
    rows, head = diff_rows(run(tmp_path, "sets_diff_table.py", a, b, args=["--ignore-axis", "config", "--clean"]))
    assert "site" not in head and "bit" not in head  # a clean set has no fault axes
    assert sorted((r[0], r[1], r[2].split(" ")[0]) for r in rows) == [
        ("12", "d", "1/8"), ("12", "q", "0/8"), ("6", "d", "2/16"), ("6", "q", "0/16")]


def test_sets_diff_table_keeps_per_cell_rows(tmp_path):
    a, b = per_cell(training_set("small")), per_cell(training_set("medium"))
    rows, _ = diff_rows(run(tmp_path, "sets_diff_table.py", a, b, args=["--ignore-axis", "config", "--clean"]))
    assert len(rows) == 8  # clean trials drawn per cell: every cell its row
    rows, _ = diff_rows(run(tmp_path, "sets_diff_table.py", training_set("small"), training_set("medium"),
                            args=["--ignore-axis", "config"]))
    assert len(rows) == 8  # detection: every cell its row, clean sets or not


# clean_sets.py itself.

def test_a_version3_training_cell_is_named_by_its_axes_without_the_fault_axes():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import clean_sets
    finally:
        sys.path.remove(str(SCRIPTS))
    rs = version3(training_set())
    assert [clean_sets.clean_set(c, rs) for c in rs["cells"][:4]] == ["config=small;steps=6"] * 2 + ["config=small;steps=12", "config=small;steps=6"]
    assert clean_sets.clean_set(rs["cells"][0], version3(training_set(), workload="gemm")) is None
    seen = set()
    assert [clean_sets.first_time(seen, "d", c, rs) for c in rs["cells"][:4]] == [True, False, True, False]
    assert clean_sets.first_time(seen, "q", rs["cells"][0], rs)  # another label's pool
