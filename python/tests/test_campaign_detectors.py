"""Detectors written in Python inside sdcbench campaigns (suites name
"python": "module:function"): scored on the same faults as ours, paired by
McNemar in compare, shown in the report, deterministic over threads, and a
failing function reported by cell and trial with the finished cells kept."""
import json
import os
import subprocess

import pytest


def run(binary, *args, env=None, ok=True):
    p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, env=env)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


@pytest.fixture(scope="module")
def binary():
    return os.environ["SDCBENCH_BINARY"]


def test_the_example_runs_beside_vabft_deterministically_and_shows_in_compare_and_report(binary, source_dir, tmp_path):
    suite = source_dir / "suites" / "python_detector.json"
    run(binary, "run", suite, "--scale", "smoke", "--quiet", "--threads", "2", "--axis", "dtype=fp32", "--out", tmp_path / "a.json")
    run(binary, "run", suite, "--scale", "smoke", "--quiet", "--threads", "1", "--axis", "dtype=fp32", "--out", tmp_path / "b.json")
    a, b = (json.loads((tmp_path / f"{x}.json").read_text()) for x in "ab")
    assert [c["faulty"] for c in a["cells"]] == [c["faulty"] for c in b["cells"]]
    py = [c for c in a["cells"] if c["detector"]["label"] == "py relative_residual(1e-3)"]
    assert len(py) == 6 and py[0]["detector"]["name"] == "python"
    assert py[0]["detector"]["params"] == {"callable": "relative_residual:relative_residual", "kwargs": {"tol": 0.001}}
    exp1 = next(c for c in py if c["axes"]["bit"] == "exp1")
    assert exp1["faulty"]["detected"] == exp1["faulty"]["trials"] > 0  # a top exponent bit of C is never missed
    cmp = run(binary, "compare", tmp_path / "a.json", "--detectors", "py relative_residual(1e-3)", "vabft (001)").stdout
    assert "McNemar" in cmp or "mcnemar" in cmp.lower(), cmp
    run(binary, "report", tmp_path / "a.json", "--out", tmp_path / "report")
    assert "py relative_residual(1e-3)" in (tmp_path / "report" / "index.html").read_text()


def test_a_function_that_raises_is_named_with_its_cell_and_trial_and_finished_cells_stay(binary, tmp_path):
    (tmp_path / "flaky.py").write_text(
        "calls = 0\n"
        "def check(A, B, C):\n"
        "    global calls\n"
        "    calls += A.dtype.itemsize == 4\n"
        "    if calls == 5:  # the fifth trial of the fp32 cell: its first clean one\n"
        "        raise RuntimeError('my detector broke')\n"
        "    return bool(abs(C).max() > 1e6)\n")
    suite = {"schema": "sdcbench.suite/1", "name": "flaky", "description": "a Python detector that fails in its second cell",
             "workload": "gemm", "axes": {"dtype": ["fp64", "fp32"], "shape": ["8x8x8"], "bit": ["exp1"], "target": ["C"]},
             "detectors": [{"python": "flaky:check", "label": "flaky"}], "trials": {"faulty": 4, "clean": 4}, "seed": 1,
             "reproduces": None, "presets": {"smoke": {}, "full": {}}}
    (tmp_path / "flaky.json").write_text(json.dumps(suite))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    p = run(binary, "run", tmp_path / "flaky.json", "--out", tmp_path / "r.json", "--threads", "1", env=env, ok=False)
    assert p.returncode == 2, p.stderr
    assert "python detector flaky:check" in p.stderr and "my detector broke" in p.stderr
    assert "dtype=fp32" in p.stderr and ("faulty trial" in p.stderr or "clean trial" in p.stderr), p.stderr
    assert "clean trial 0" in p.stderr, p.stderr
    assert not (tmp_path / "r.json").exists()
    journal = [json.loads(line) for line in (tmp_path / "r.json.journal").read_text().splitlines()[1:] if line.strip()]
    assert [j.get("cell") for j in journal if "records" in j] == [0]  # the fp64 cell, finished
    assert [(j["chunk"], j["first"]) for j in journal if "chunk" in j] == [(1, 0)]  # fp32's faulty trials 0-3, kept
    (tmp_path / "flaky.py").write_text("def check(A, B, C):\n    return bool(abs(C).max() > 1e6)\n")
    run(binary, "run", tmp_path / "flaky.json", "--out", tmp_path / "r.json", "--resume", env=env)
    assert not (tmp_path / "r.json.journal").exists()
    assert len(json.loads((tmp_path / "r.json").read_text())["cells"]) == 2


def test_a_bad_callable_is_an_input_error_before_any_trial(binary, tmp_path):
    suite = {"schema": "sdcbench.suite/1", "name": "bad", "description": "no such module", "workload": "gemm",
             "axes": {"shape": ["8x8x8"], "bit": ["exp1"], "target": ["C"]},
             "detectors": [{"python": "no_such_module_here:f"}], "trials": {"faulty": 2, "clean": 2}, "seed": 1,
             "reproduces": None, "presets": {"smoke": {}, "full": {}}}
    (tmp_path / "bad.json").write_text(json.dumps(suite))
    p = run(binary, "run", tmp_path / "bad.json", "--out", tmp_path / "r.json", ok=False)
    assert p.returncode == 2 and "no_such_module_here" in p.stderr, p.stderr


@pytest.mark.parametrize("suite_name, signature", [
    ("quick_int8", "A:uint8:2 B:int8:2 C:int32:2"),
    ("dlrm_eb_table3", "codes:uint8:2 alpha:float32:1 beta:float32:1 indices:int64:1 offsets:int64:1 out:float32:2"),
    ("quick_training", "loss:float grads:float32:1"),
])
def test_every_view_reaches_a_python_function(binary, source_dir, tmp_path, suite_name, signature):
    """int8 GEMM, EmbeddingBag and training views, besides gemm and sample: the
    function gets the view's arrays (checked by their dtypes and ranks) and
    its verdict is scored beside the suite's own detectors."""
    (tmp_path / "sig.py").write_text(
        "import numpy as np\n"
        "def describe(**named):\n"
        "    return ' '.join(f'{k}:{v.dtype}:{v.ndim}' if isinstance(v, np.ndarray) else f'{k}:{type(v).__name__}'\n"
        "                    for k, v in named.items() if v is not None)\n"
        "def int8(A, B, C, want):\n    assert describe(A=A, B=B, C=C) == want, describe(A=A, B=B, C=C)\n    return False\n"
        "def bag(codes, alpha, beta, indices, offsets, weights, out, want):\n"
        "    assert describe(codes=codes, alpha=alpha, beta=beta, indices=indices, offsets=offsets, out=out) == want\n"
        "    return bool(~np.isfinite(out).all())\n"
        "def training(loss, grads, want):\n    assert describe(loss=loss, grads=grads) == want\n"
        "    return {'flagged': bool(~np.isfinite(grads).all()), 'score': float(np.abs(grads).max())}\n")
    suite = json.loads((source_dir / "suites" / f"{suite_name}.json").read_text())
    fn = {"quick_int8": "int8", "dlrm_eb_table3": "bag", "quick_training": "training"}[suite_name]
    suite["detectors"] = suite["detectors"][:1] + [{"python": f"sig:{fn}", "label": "py", "params": {"want": signature}}]
    suite.pop("compare", None)
    for axes in [suite["axes"]] + [p.get("axes", {}) for p in suite["presets"].values()]:
        if "config" in axes:  # training configurations are named relative to the suite's folder
            axes["config"] = [str(source_dir / "suites" / c) for c in axes["config"]]
    (tmp_path / "s.json").write_text(json.dumps(suite))
    first = list(suite["axes"])[0]
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run(binary, "run", tmp_path / "s.json", "--scale", "smoke", "--quiet", "--axis", f"{first}={suite['axes'][first][0]}",
        "--out", tmp_path / "r.json", env=env)
    cells = [c for c in json.loads((tmp_path / "r.json").read_text())["cells"] if c["detector"]["label"] == "py"]
    assert cells and all(c["skipped"] is not None or c["faulty"]["trials"] + c["clean"]["trials"] > 0 for c in cells)
