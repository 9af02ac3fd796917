"""sdcbench.quantize / dequantize / inject on block-scaled tensors: the C++
formats (foundation/formats/block_scaled.hpp) on numpy arrays."""
import math

import numpy as np
import pytest

import sdcbench


def test_every_format_is_listed():
    assert sdcbench.block_formats() == ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", "nvfp4"]


def test_microxcalings_e4m3_row_and_the_rounding_option():
    x = np.array([485, 475, 400, -485, -475, -450, 2**-6, -(2**-6)], dtype=np.float32)
    q = sdcbench.quantize(x, "mxfp8_e4m3")
    assert q["codes"].dtype == np.uint8 and q["codes"].shape == x.shape
    assert list(q["scales"]) == [127]  # 2^0 in E8M0
    assert list(sdcbench.dequantize(q)) == [448, 448, 416, -448, -448, -448, 2**-6, -(2**-6)]
    assert sdcbench.dequantize(sdcbench.quantize(x, "mxfp8_e4m3", rounding="even"))[2] == 384


def test_blocks_along_either_axis_with_a_short_last_block():
    x = np.random.default_rng(1).standard_normal((70, 3)).astype(np.float32)
    down = sdcbench.quantize(x, "mxfp4_e2m1", axis=0)
    assert down["scales"].shape == (3, 3)  # ceil(70 / 32) blocks down each of 3 columns
    along = sdcbench.quantize(x, "mxfp4_e2m1", axis=-1)
    assert along["scales"].shape == (70, 1)
    for q in (down, along):
        y = sdcbench.dequantize(q)
        assert y.shape == x.shape and np.all(np.isfinite(y))
        assert np.all(np.abs(y - x) <= 0.25 * np.abs(x).max())  # FP4 E2M1: within half a step of 2 at the top


def test_nvfp4_has_a_tensor_scale_and_a_zero_tensor_has_scale_one():
    q = sdcbench.quantize(np.ones((2, 16), dtype=np.float32), "nvfp4")
    assert q["tensor_scale"] == np.float32(1) / np.float32(448 * 6)
    assert np.all(sdcbench.dequantize(q) == 1)
    assert sdcbench.quantize(np.zeros(20, dtype=np.float32), "nvfp4")["tensor_scale"] == 1.0


def test_a_block_scale_fault_moves_exactly_its_block():
    x = np.linspace(0.5, 1.5, 96, dtype=np.float32).reshape(1, 96)
    q = sdcbench.quantize(x, "mxfp8_e4m3")
    before = sdcbench.dequantize(q)
    (r,) = sdcbench.inject(q, "block_scale", fault="bitflip", bit="exp8", site="at(0,1)")
    assert r["part"] == "block_scale" and r["applied"] and r["old_bits"] ^ r["new_bits"] == 1
    after = sdcbench.dequantize(q)
    changed = list(np.flatnonzero(after != before))
    assert changed == list(range(32, 64)) == r["moved"]
    assert q["scales"][0][1] == r["new_bits"] and r["old_bits"] == 119  # 2^(0 - emax 8): amax in [1, 2)


def test_a_code_fault_moves_one_element_and_names_its_bits():
    q = sdcbench.quantize(np.full(40, 3.0, dtype=np.float32), "mxfp4_e2m1")
    (r,) = sdcbench.inject(q, "code", fault="bitflip", bit="sign", site="at(0,7)", seed=3)
    assert r["moved"] == [7] and r["old_values"] == [3.0] and r["new_values"] == [-3.0]
    with pytest.raises(ValueError, match="mxfp4_e2m1|fp4_e2m1 has 1 mantissa bits"):
        sdcbench.inject(q, "code", fault="bitflip", bit="mant2")
    with pytest.raises(ValueError, match="no tensor scale"):
        sdcbench.inject(q, "tensor_scale", fault="bitflip", bit="exp1")


def test_the_tensor_scale_fault_updates_the_dict():
    q = sdcbench.quantize(np.ones(16, dtype=np.float32), "nvfp4")
    old = q["tensor_scale"]
    (r,) = sdcbench.inject(q, "tensor_scale", fault="bitflip", bit="exp8")  # fp32 exponent LSB
    assert math.isclose(q["tensor_scale"] / old, 2.0) or math.isclose(q["tensor_scale"] / old, 0.5)
    assert len(r["moved"]) == 16


def test_bad_input_names_what_was_expected():
    with pytest.raises(ValueError, match="known: mxfp8_e4m3"):
        sdcbench.quantize(np.ones(4, dtype=np.float32), "mxfp5")
    with pytest.raises(ValueError, match="expected a 1-D or 2-D array"):
        sdcbench.quantize(np.ones((2, 2, 2), dtype=np.float32), "mxint8")
    with pytest.raises(ValueError, match="expected rounding 'even'"):
        sdcbench.quantize(np.ones(4, dtype=np.float32), "nvfp4", rounding="ties_away")
    with pytest.raises(ValueError, match="expected finite values"):
        sdcbench.quantize(np.array([1.0, np.nan], dtype=np.float32), "nvfp4")
