"""The detectors as callables: each verdict equals the one the sdcbench program
prints for the same values (check-gemm, stat), field for field."""
import numpy as np
import torch

import sdcbench


def without_file(d):
    return {k: v for k, v in d.items() if k not in ("file", "losses", "grads")}


def test_a_gemm_check_gives_the_cli_verdict_clean_and_with_a_fault(cli, tmp_path):
    g = np.random.default_rng(4)
    a = g.standard_normal((32, 48)).astype(np.float32)
    b = g.standard_normal((48, 24)).astype(np.float32)
    c = (a.astype(np.float64) @ b).astype(np.float32)
    c[5, 7] *= 1.5
    for name, x in (("a", a), ("b", b), ("c", c)):
        np.save(tmp_path / f"{name}.npy", x)
    for det in ("vabft", "aabft", "fixed_abs:abs_tol=1e-3"):
        clean = sdcbench.check_gemm(a, b, dtype="fp32", detector=det)
        assert clean == cli.json("check-gemm", "--a", tmp_path / "a.npy", "--b", tmp_path / "b.npy", "--detector", det)
        faulty = sdcbench.check_gemm(a, b, c, dtype="fp32", detector=det)
        assert faulty == cli.json("check-gemm", "--a", tmp_path / "a.npy", "--b", tmp_path / "b.npy", "--c", tmp_path / "c.npy", "--detector", det)
    assert faulty["verdict"]["flagged"] and not clean["verdict"]["flagged"]
    as_tensors = sdcbench.check_gemm(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c), detector="vabft")
    assert as_tensors == sdcbench.check_gemm(a, b, c, detector="vabft")


def test_folding_w1_and_the_other_gradient_tests_match_the_cli(cli, tmp_path):
    g = np.random.default_rng(9)
    values = np.concatenate([g.normal(0, 1, 400), g.normal(6, 1, 40)])  # a shifted mode, as a fault leaves
    np.save(tmp_path / "v.npy", values)
    for name in ("folding_w1", "w1", "robust_z", "dip"):
        assert without_file(sdcbench.stat(name, values)) == without_file(cli.json("stat", name, tmp_path / "v.npy"))
    w1 = sdcbench.stat("w1", values)
    assert w1["decision"] == "clean" and sdcbench.stat("w1", values, tau=0.9 * w1["statistic"])["decision"] != "clean"


def test_003s_feature_value_keeps_its_state_over_steps_like_the_cli(cli, tmp_path):
    g = np.random.default_rng(2)
    steps = np.abs(g.standard_normal((40, 12))) * 1e-4
    steps[30, 0] = 1e3  # a spike in a watched parameter after the warm-up
    np.save(tmp_path / "fv.npy", steps)
    ours = sdcbench.feature_value(steps, variant="torch_npu", upper_thresh2=50)
    assert without_file(ours) == without_file(cli.json("stat", "feature_value", tmp_path / "fv.npy", "--variant", "torch_npu", "--param", "upper_thresh2=50"))
    assert [30, 0] in ours["alarms_at"]
    np.save(tmp_path / "one.npy", steps[:, 0])
    assert without_file(sdcbench.npu_asd(steps[:, 0])) == without_file(cli.json("stat", "npu_asd", tmp_path / "one.npy"))


def test_002s_metrics_on_per_rank_tensors_match_the_cli(cli, tmp_path):
    g = np.random.default_rng(3)
    grads = g.standard_normal((4, 500)).astype(np.float32)
    grads[2] *= 30  # one rank's gradient far from the others'
    losses = np.array([2.1, 2.0, 9.5, 2.05])
    np.save(tmp_path / "g.npy", grads)
    np.save(tmp_path / "l.npy", losses)
    ours = sdcbench.consistency(losses, grads)
    assert without_file(ours) == without_file(cli.json("stat", "consistency", "--losses", tmp_path / "l.npy", "--grads", tmp_path / "g.npy"))
    z = [r["z_log_norm"] for r in ours["ranks"]]
    assert max(range(4), key=lambda r: z[r]) == 2


def test_feature_value_one_step_at_a_time_equals_the_whole_run():
    g = np.random.default_rng(5)
    steps = np.abs(g.standard_normal((50, 7))) * 1e-4
    steps[20, 3], steps[41, 0] = 1e3, 5e2
    whole = sdcbench.feature_value(steps, variant="torch_npu", grad_sample_interval=1, upper_thresh2=50)
    fv = sdcbench.FeatureValue(7, variant="torch_npu", grad_sample_interval=1, upper_thresh2=50)
    alarmed = [(s, c) for s, row in enumerate(steps) for c in fv.step(row)]
    assert [list(a) for a in alarmed] == whole["alarms_at"] and [20, 3] in whole["alarms_at"]
    assert without_file(fv.result()) == without_file(whole)


def test_the_checksum_follows_each_original_on_a_nan_row():
    """003's CheckSum: MindSpore fails a GEMM with a NaN anywhere (its max over
    rows is NaN, and NOT (NaN < 1e-20) holds); torch_npu does not flag a NaN
    row (NaN > 5e-20 is false) -- detectors/ascend/matmul_checksum.hpp cites both."""
    bf = lambda x: torch.from_numpy(np.asarray(x, dtype=np.float32)).to(torch.bfloat16).to(torch.float32).numpy()
    g = np.random.default_rng(8)
    a, b = bf(g.standard_normal((16, 32))), bf(g.standard_normal((32, 24)))
    c = bf(a.astype(np.float64) @ b)
    for variant in ("mindspore", "torch_npu"):
        assert not sdcbench.checksum(a, b, c, variant=variant)["failed"]
    big = c.copy()
    big[6, 2] += 64
    for variant in ("mindspore", "torch_npu"):
        r = sdcbench.checksum(a, b, big, variant=variant)
        assert r["failed"] and r["worst_row"] == 6
    nan = c.copy()
    nan[3, 1] = np.nan
    assert sdcbench.checksum(a, b, nan, variant="mindspore")["failed"]
    assert not sdcbench.checksum(a, b, nan, variant="torch_npu")["rows_flagged"]
