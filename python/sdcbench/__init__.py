"""sdcbench from Python: the C++ core's injectors, detectors and result sets.

Every function runs the same C++ code as the `sdcbench` program, so an
injection record or a verdict from Python has the fields (and the bits) the
C++ campaigns give. Arrays are numpy arrays or torch tensors on the CPU.

    inject(x, "bf16", fault="bitflip", bit="exp1", seed=7)   # in place; records
    q = quantize(x, "mxfp8_e4m3", axis=-1)                      # codes, scales, tensor scale
    dequantize(q); inject(q, "block_scale", bit="exp1")         # faults in codes and scales
    check_gemm(A, B, C, dtype="fp32", detector="vabft")        # sdcbench check-gemm
    stat("folding_w1", log_norms)                               # 000's tests
    feature_value(max_g2, variant="mindspore")                  # 003's check over steps
    FeatureValue(parameters).step(row)                          # the same, one step per call
    checksum(A, B, C, variant="torch_npu")                      # 003's bf16 matmul CheckSum
    consistency(losses, grads)                                  # 002's metrics
    load(path), validate(path), compare(a, b), cells_table(result_set)
    pooled_clean(result_set)                                    # clean counts, each clean set once

Errors in the inputs raise ValueError naming the argument and what was
expected. Suites may name a Python detector (sdcbench.detector, METHODOLOGY.md
"Detectors written in Python, and the training monitor"); sdcbench.monitor scores training detectors inside an
ordinary PyTorch loop.
"""
import json as _json

import numpy as _np

from . import _sdcbench
from ._sdcbench import block_formats, formats, stat_names

__version__ = _sdcbench.version

# Formats whose elements an array holds as bit patterns of their width.
_PATTERN_BITS = {"bf16": 16, "fp16": 16, "fp8_e4m3": 8, "fp8_e5m2": 8}


def _torch():
    try:
        import torch
    except ImportError:  # torch is optional: numpy arrays need none
        return None
    return torch


def _numpy_view(x, fmt):
    """A numpy array sharing x's memory, holding what the injector reads for `fmt`."""
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.device.type != "cpu" or not x.is_contiguous():
            raise ValueError("inject: expected a contiguous CPU tensor (injection is in place)")
        if fmt in _PATTERN_BITS:
            x = x.view(torch.int16 if _PATTERN_BITS[fmt] == 16 else torch.uint8)
        return x.detach().numpy()
    if not isinstance(x, _np.ndarray):
        raise ValueError("inject: expected a numpy array or a torch tensor")
    if fmt in _PATTERN_BITS and x.dtype.kind == "f":
        return x.view(_np.uint16 if x.itemsize == 2 else _np.uint8)
    return x


def inject(x, format, fault="bitflip", bit="none", site="uniform", seed=0):
    """Injects a fault into x in place: the fault model, bit and site rule as
    on a suite's axes (fault, bit, site), drawn from a stream seeded by `seed`.
    bf16/fp16 tensors (or numpy float16, or 16-bit patterns) keep every bit,
    NaN payloads included. Returns the injection records (one per element).
    On a quantize() result, `format` names the part: "code", "block_scale" or
    "tensor_scale" (bits named per element or scale type); the records add
    "part", "moved" (the elements whose value changed), "old_values" and
    "new_values"."""
    if isinstance(x, dict) and "codes" in x:
        return _inject_block(x, format, fault, bit, site, seed)
    return _sdcbench.inject(_numpy_view(x, format), format, fault, bit, site, seed)


def quantize(x, format, axis=-1, rounding=None, scale_rule="floor"):
    """Quantizes a 1-D or 2-D array (as float32) to a block-scaled format
    (block_formats(): mxfp8_e4m3, ..., mxint8, nvfp4) in blocks along `axis`.
    rounding: None (the original's: ties away for MX, even for NVFP4),
    "ties_away" or "even"; scale_rule: "floor" (microxcaling) or "rceil".
    Returns {"format", "codes" (uint8, x's shape), "scales" (uint8, one per
    block), "tensor_scale" (NVFP4's FP32 decode scale; 1 otherwise), "axis"}."""
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().to(torch.float32).cpu().numpy()
    return _sdcbench.quantize(_np.asarray(x, dtype=_np.float32), format, axis, rounding, scale_rule)


def dequantize(q):
    """The float32 values a quantize() result stands for (x's shape)."""
    return _sdcbench.dequantize(q["format"], q["codes"], q["scales"], q["tensor_scale"], q["axis"])


def _inject_block(q, part, fault, bit, site, seed):
    records, q["tensor_scale"] = _sdcbench.inject_block(q["format"], q["codes"], q["scales"], q["tensor_scale"], q["axis"],
                                                        part, fault, bit, site, seed)
    return records


def _array(x):
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().to(torch.float64).cpu().numpy()
    return _np.asarray(x)


def check_gemm(a, b, c=None, dtype="fp32", detector="", accumulation="sequential"):
    """One GEMM check on C = A B (C computed in `accumulation` order when not
    given), as `sdcbench check-gemm`: {"verdict": {"flagged", "score",
    "located_row", ...}, "metrics", "checks", ...}. detector: NAME[:k=v,...]."""
    return _json.loads(_sdcbench.check_gemm(_array(a), _array(b), None if c is None else _array(c), dtype, detector, accumulation))


def stat(name, values, tau=None, alpha=None, B=None, seed=None):
    """000's statistical tests on values (gradient log-norms), as `sdcbench stat`."""
    return _json.loads(_sdcbench.stat(name, _array(values), tau, alpha, B, seed))


def feature_value(values, variant="mindspore", **params):
    """003's feature-value check with its state, over steps: values is steps x
    parameters (or one parameter's steps) of max g^2; params as `--param`."""
    return _json.loads(_sdcbench.feature_value(_array(values), variant, {k: str(v) for k, v in params.items()}))


class FeatureValue:
    """003's feature-value check kept across calls, one step at a time (for a
    loop that sees one step's max g^2 per parameter at a time): step(row)
    returns the parameters that alarmed at this step; result() what
    feature_value() returns for the steps so far."""

    def __init__(self, parameters, variant="mindspore", **params):
        self._t = _sdcbench.FeatureValue(parameters, variant, {k: str(v) for k, v in params.items()})

    def step(self, row):
        return list(self._t.step(_array(row)))

    def result(self):
        return _json.loads(self._t.result())


def checksum(a, b, c, variant="mindspore", bf16=True):
    """003's CheckSum of a bf16 matmul C = A B as MindSpore ("mindspore") or
    torch_npu ("torch_npu") computes it: {"failed", "worst_row", "worst_ratio",
    "rows_flagged"} (detectors/ascend/matmul_checksum.hpp cites both originals)."""
    return _sdcbench.checksum(_array(a), _array(b), _array(c), variant, bf16)


def npu_asd(values, **params):
    """003's NPU_ASD check (silent_check v3) over steps of max g^2."""
    return _json.loads(_sdcbench.npu_asd(_array(values), {k: str(v) for k, v in params.items()}))


def consistency(losses, grads):
    """002's metrics on one step: a loss per rank, grads ranks x P before the all-reduce."""
    return _json.loads(_sdcbench.consistency(_array(losses), _array(grads)))


def load(path):
    """A result set of any version, validated, as version 4 (a dict)."""
    return _json.loads(_sdcbench.load_result_set(str(path)))


def validate(path):
    """Every problem of a result set (schema and arithmetic); [] when valid."""
    return list(_sdcbench.validate_result_set(str(path)))


def compare(a, b, alpha=0.05):
    """Two result sets on the same faults, as `sdcbench compare`: (table text, rows)."""
    table, rows = _sdcbench.compare_result_sets(str(a), str(b), alpha)
    return table, _json.loads(rows)


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else k, v, out)
    elif not isinstance(value, list):
        out[prefix] = value


def _loaded(result_set):
    return load(result_set) if not isinstance(result_set, dict) else result_set


# Version 3 had no `clean_set`: a training cell's clean episodes were the
# fork's, named by its axes without these (version 4's suite.fault_axes).
_TRAINING_FAULT_AXES = ("site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin")


def clean_set(record, result_set):
    """The id of the clean episodes a cell or recording of `result_set` (a
    loaded dict) shares with the records of the same id, or None when its
    clean trials were drawn for it alone. Version 3 (no field): derived."""
    if "clean_set" in record:
        return record["clean_set"]
    if result_set["suite"].get("workload") != "training" or record.get("skipped") is not None:
        return None
    return ";".join(f"{k}={v}" for k, v in sorted(record["axes"].items()) if k not in _TRAINING_FAULT_AXES)


def cells_table(result_set):
    """One flat dict per cell and detector (axes.*, detector, clean_set,
    faulty.*, clean.* and the intervals), ready for pandas.DataFrame(rows)
    without making pandas a dependency. Rows of one clean_set (not None)
    repeat the same clean episodes: pooled_clean() adds them once.
    `result_set`: a path or a loaded dict."""
    rs = _loaded(result_set)
    rows = []
    for cell in rs["cells"]:
        row = {"key": cell["key"], "detector": cell["detector"]["label"], "skipped": cell.get("skipped"),
               "clean_set": clean_set(cell, rs)}
        for part in ("axes", "faulty", "clean"):
            _flatten(part, cell.get(part) or {}, row)
        rows.append(row)
    return rows


def pooled_clean(result_set):
    """Per detector label, the clean episodes and steps that ran over the
    set's cells and how many were flagged: {label: {"clean.trials",
    "clean.flagged", "clean.steps.trials", "clean.steps.flagged"}}.
    A pooled count counts each clean set once (issue 66): a cell's clean
    counts are added the first time its (label, clean_set) is seen; cells
    whose clean_set is None always. `result_set`: a path or a loaded dict."""
    rs = _loaded(result_set)
    seen, out = set(), {}
    for cell in rs["cells"]:
        if cell.get("skipped") is not None:
            continue
        label, cs = cell["detector"]["label"], clean_set(cell, rs)
        total = out.setdefault(label, dict.fromkeys(("clean.trials", "clean.flagged", "clean.steps.trials", "clean.steps.flagged"), 0))
        if cs is not None and (label, cs) in seen:
            continue
        seen.add((label, cs))
        counts = {}
        _flatten("clean", cell["clean"], counts)
        for name in total:
            total[name] += counts[name]
    return out
