"""sdcbench.inject: the C++ injectors on numpy arrays and torch tensors, bit exact."""
import numpy as np
import pytest
import torch

import sdcbench


def bits32(x):
    return x.view(np.uint32)


def test_an_fp32_bitflip_changes_exactly_the_recorded_bit():
    x = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
    before = bits32(x).copy()
    (r,) = sdcbench.inject(x, "fp32", fault="bitflip", bit="exp1", seed=11)
    assert r["applied"]
    changed = np.flatnonzero(bits32(x) != before)
    assert list(changed) == [r["index"]] and (r["row"], r["col"]) == divmod(r["index"], 8)
    assert r["old_bits"] == before.flat[r["index"]] and r["new_bits"] == bits32(x).flat[r["index"]]
    assert r["old_bits"] ^ r["new_bits"] == 1 << 30  # exp1: the exponent's top bit


def test_the_same_seed_draws_the_same_fault_and_another_seed_may_not():
    draws = []
    for seed in (5, 5, 6, 7, 8):
        x = np.zeros(1000)
        draws.append(sdcbench.inject(x, "fp64", fault="bitflip", bit="sign", seed=seed)[0]["index"])
    assert draws[0] == draws[1]
    assert len(set(draws[1:])) > 1


def test_a_bf16_tensor_keeps_every_bit_nan_payloads_included():
    t = torch.ones(4, 8, dtype=torch.bfloat16)
    raw = t.view(torch.int16)
    raw[0, 0] = 0x7F81  # a signalling NaN with a payload, which a float conversion would quieten
    raw[0, 1] = -0x0081  # 0xFF7F: the largest negative finite value
    before = raw.clone()
    (r,) = sdcbench.inject(t, "bf16", fault="bitflip", bit="mant1", site="at(0,1)")
    assert r["applied"] and r["index"] == 1
    assert int(raw[0, 0]) == 0x7F81  # untouched, payload and all
    assert (int(raw[0, 1]) & 0xFFFF) == (0xFF7F ^ (1 << 6))  # mant1 of bf16: bit 6
    assert torch.equal(raw.view(-1)[2:], before.view(-1)[2:])
    (r,) = sdcbench.inject(t, "bf16", fault="bitflip", bit="0", site="at(0,0)")
    assert (int(raw[0, 0]) & 0xFFFF) == 0x7F80 and r["old_bits"] == 0x7F81  # now +inf: bits, not values


def test_fp16_numpy_int8_and_multi_element_sites():
    h = np.full(16, 1.5, dtype=np.float16)
    (r,) = sdcbench.inject(h, "fp16", fault="bitflip", bit="sign", seed=3)
    assert h[r["index"]] == -1.5 and np.count_nonzero(h == -1.5) == 1
    q = np.arange(-8, 8, dtype=np.int8)
    (r,) = sdcbench.inject(q, "s8", fault="stuck_at_1", bit="7", site="at(0,8)")
    assert q[8] == -128 and r["old_bits"] == 0 and r["new_bits"] == 0x80
    m = np.linspace(-1, 1, 20, dtype=np.float32)
    recs = sdcbench.inject(m, "fp32", fault="multiply(10)", site="max_abs")
    assert sorted(r["index"] for r in recs) == [0, 19]  # every element tied for the largest |x|
    assert m[0] == -10 and m[19] == 10


def test_bad_input_names_what_was_expected():
    with pytest.raises(ValueError, match="16-bit patterns"):
        sdcbench._sdcbench.inject(np.zeros(4, dtype=np.float32), "bf16", "bitflip", "sign", "uniform", 0)
    with pytest.raises(ValueError, match="format"):
        sdcbench.inject(np.zeros(4), "fp128", bit="sign")
    with pytest.raises(ValueError, match="bit"):
        sdcbench.inject(np.zeros(4, dtype=np.float32), "fp32", bit="exp9")
    with pytest.raises(ValueError, match="C-contiguous"):
        sdcbench.inject(np.zeros((4, 4))[:, ::2], "fp64", bit="sign")
