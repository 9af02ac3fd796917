"""An example Python detector for sdcbench campaigns (suites/python_detector.json).

relative_residual(A, B, C, tol): the classic row-checksum test written in
numpy: per row, |C 1 - A (B 1)| in float64, flag when the
largest difference exceeds tol times the row's magnitude sum(|A||B| 1).
It is what a researcher would try first, and the suite scores it beside
V-ABFT (001) on the same faults. lognorm_spread(values, k): for gradient
samples, flags when the largest log-norm is k MADs above the median.
"""
import numpy as np


@np.errstate(invalid="ignore", over="ignore")  # a flipped element may be NaN or Inf: flagged below, not warned about
def relative_residual(A, B, C, tol=1e-5):
    A64, B64, C64 = (np.asarray(x, dtype=np.float64) for x in (A, B, C))
    b1 = B64.sum(axis=1)
    diff = np.abs(C64.sum(axis=1) - A64 @ b1)
    scale = np.abs(A64) @ np.abs(B64).sum(axis=1)
    ratio = np.divide(diff, scale, out=np.full_like(diff, np.inf), where=scale > 0)
    ratio = np.where(np.isfinite(C64).all(axis=1), ratio, np.inf)  # a non-finite row is flagged
    i = int(np.argmax(ratio))
    return {"flagged": bool(ratio[i] > tol), "score": float(ratio[i]) if np.isfinite(ratio[i]) else None,
            "located_row": i if ratio[i] > tol else None}


def lognorm_spread(values, k=6.0):
    v = np.asarray(values, dtype=np.float64)
    med = np.median(v)
    mad = np.median(np.abs(v - med)) * 1.4826
    z = (v.max() - med) / mad if mad > 0 else np.inf
    return {"flagged": bool(z > k), "score": float(z) if np.isfinite(z) else None}
