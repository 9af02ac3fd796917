"""sdcbench.monitor on an ordinary PyTorch loop: the example, in one process
and on two gloo ranks, writes a result set the program validates and shows;
a flip to the top exponent bit of a gradient is caught by the NaN/Inf-free
checks that look at magnitudes, and a detector that needs GEMMs is refused."""
import json
import os
import subprocess
import sys

import pytest
import torch

import sdcbench
from sdcbench.monitor import Monitor, faults_from_suite


def run_example(source_dir, tmp_path, *args):
    env = dict(os.environ)
    p = subprocess.run([sys.executable, str(source_dir / "examples" / "monitor_training.py"), *args], capture_output=True,
                       text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("ranks", [1, 2])
def test_the_example_writes_a_valid_result_set(cli, source_dir, tmp_path, ranks):
    out = tmp_path / "m.json"
    run_example(source_dir, tmp_path, "--ranks", str(ranks), "--faulty", "3", "--clean", "3", "--steps", "6", "--bit", "exp1",
                "--port", str(29600 + ranks), "--out", str(out))
    assert "valid" in cli("validate", out)
    rs = sdcbench.load(out)
    cells = {c["detector"]["label"]: c for c in rs["cells"]}
    assert set(cells) >= {"nonfinite_grad", "folding_w1 (000)", "feature_value (003)", "npu_asd"}
    for c in cells.values():
        assert c["faulty"]["trials"] == 3 and c["clean"]["trials"] == 3
    # exp1 of an fp32 gradient element: a magnitude near 2^127 or infinity, which the NaN/Inf
    # baseline or 003's EMA check sees at once.
    assert max(cells["nonfinite_grad"]["faulty"]["detected"], cells["npu_asd"]["faulty"]["detected"]) == 3
    assert "monitor_example" in cli("show", out)


def test_a_clean_loop_is_scored_as_clean_and_gradients_are_the_mean_over_ranks():
    model = torch.nn.Linear(4, 2)
    mon = Monitor(model, ["nonfinite_grad", "folding_w1"], name="t")
    with mon.episode(False, 0, steps=2):
        for step in range(2):
            model.zero_grad()
            loss = model(torch.ones(3, 4)).pow(2).mean()
            loss.backward()
            before = [p.grad.clone() for p in model.parameters()]
            verdicts = mon.after_backward(step, loss)
            assert [v["label"] for v in verdicts] == ["nonfinite_grad", "folding_w1"]
            assert all(torch.equal(a, p.grad) for a, p in zip(before, model.parameters()))  # one rank: the mean is itself


def test_a_detector_that_needs_gemms_is_refused_by_name():
    # A GEMM check runs inside the GEMMs by default (a guard), else on their copies: neither is in a monitored loop.
    with pytest.raises(ValueError, match="gemm_vabft needs gemm_guard"):
        Monitor(torch.nn.Linear(4, 2), ["gemm_vabft"])
    with pytest.raises(ValueError, match="gemm_vabft needs gemms"):
        Monitor(torch.nn.Linear(4, 2), [{"name": "gemm_vabft", "params": {"in_step": False}}])
    with pytest.raises(ValueError, match="training detector"):
        Monitor(torch.nn.Linear(4, 2), ["vabft"])


def test_faults_come_from_a_suites_fault_axes(source_dir):
    faults = faults_from_suite(source_dir / "suites" / "quick_training.json")
    assert faults and all({"site", "fault", "bit", "when"} <= set(f) for f in faults)
