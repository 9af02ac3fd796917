"""Clean sets from Python (issue 66): cells_table names each cell's clean set,
pooled_clean counts each (detector, clean set) once; version 3 sets' ids are
derived from the axes of training cells."""
import copy

import sdcbench

FAULT_AXES = ["site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin"]


def cell(label, config, bit, clean, skipped=None):
    trials, flagged, steps, steps_flagged = clean
    axes = {"bit": bit, "config": config, "site": "grad:all"}
    return {
        "key": ";".join(f"{k}={v}" for k, v in axes.items()), "axes": axes, "detector": {"label": label},
        "skipped": skipped, "clean_set": f"config={config}", "faulty": {"trials": 4, "detected": 1},
        "clean": None if skipped else {"trials": trials, "flagged": flagged, "steps": {"trials": steps, "flagged": steps_flagged},
                                        "ci95": [0.0, 1.0]},
    }


def result_set():
    """Per label, two cells sharing the clean set config=a (16 episodes, 2
    flagged; 96 steps, 3 flagged) and one of config=b (8, 1; 48, 1)."""
    cells = []
    for label in ("d", "e"):
        cells += [cell(label, "a", "exp1", (16, 2, 96, 3)), cell(label, "a", "exp2", (16, 2, 96, 3)),
                  cell(label, "b", "exp1", (8, 1, 48, 1))]
    return {"schema": "sdcbench.result/4", "suite": {"workload": "training", "fault_axes": FAULT_AXES}, "cells": cells}


def version3(rs, workload="training"):
    rs = copy.deepcopy(rs)
    rs["schema"], rs["suite"] = "sdcbench.result/3", {"workload": workload}
    for c in rs["cells"]:
        del c["clean_set"]
    return rs


ONCE = {"clean.trials": 24, "clean.flagged": 3, "clean.steps.trials": 144, "clean.steps.flagged": 4}
EVERY_CELL = {"clean.trials": 40, "clean.flagged": 5, "clean.steps.trials": 240, "clean.steps.flagged": 7}


def test_pooled_clean_counts_each_clean_set_once_per_detector():
    assert sdcbench.pooled_clean(result_set()) == {"d": ONCE, "e": ONCE}


def test_pooled_clean_adds_every_cell_without_a_clean_set():
    rs = result_set()
    for c in rs["cells"]:
        c["clean_set"] = None
    assert sdcbench.pooled_clean(rs) == {"d": EVERY_CELL, "e": EVERY_CELL}


def test_a_version3_training_set_is_pooled_by_the_derived_id():
    assert sdcbench.pooled_clean(version3(result_set())) == {"d": ONCE, "e": ONCE}
    assert sdcbench.pooled_clean(version3(result_set(), workload="gemm")) == {"d": EVERY_CELL, "e": EVERY_CELL}


def test_a_skipped_cell_does_not_take_its_clean_sets_place():
    rs = result_set()
    rs["cells"].insert(0, cell("d", "a", "exp3", (0, 0, 0, 0), skipped="bit: not in the format"))
    assert sdcbench.pooled_clean(rs)["d"] == ONCE


def test_cells_table_names_each_cells_clean_set():
    assert [r["clean_set"] for r in sdcbench.cells_table(result_set())][:3] == ["config=a", "config=a", "config=b"]
    assert [r["clean_set"] for r in sdcbench.cells_table(version3(result_set()))][:3] == ["config=a", "config=a", "config=b"]
    assert {r["clean_set"] for r in sdcbench.cells_table(version3(result_set(), workload="gemm"))} == {None}


def test_a_committed_training_set_counts_its_one_fork_once(source_dir):
    # 60 cells per check (both optimizers share the fork's clean set): 40 clean
    # episodes of 6 steps ran, not 60 x 240 steps.
    pooled = sdcbench.pooled_clean(source_dir / "results" / "training_production-full.json")
    assert len(pooled) == 25
    assert {(p["clean.trials"], p["clean.steps.trials"]) for p in pooled.values()} == {(40, 240)}
