#!/usr/bin/env python3
"""The mpmath twin of sdcbench's MPFR ground truth (exact_row_check_errors):
for C = A B (m x k times k x n, binary64, row-major raw little-endian files),
each row's |fp64 sum of C_i - exact(A_i (B 1))|, the row summed in the fixed
lane order of foundation/simd/reductions.hpp (32 fp64 lanes, folded by halves; Python
floats are binary64, so the bits are the same), with mpmath at 100
decimal digits as 001 used it. Prints the seconds of the computation (the best
of `repeats` runs, files already read) and then one error per row, for
bench/ground_truth_bench.cpp to compare with MPFR's.
Usage: mpmath_row_check.py DIR M K N REPEATS   (DIR holds A.f64 B.f64 C.f64)
"""
import sys
import time
from array import array

from mpmath import fsum, mp, mpf

LANES = 32  # reduction_lanes<double>: 256 bytes of lanes


def load(path, count):
    a = array("d")
    with open(path, "rb") as f:
        a.fromfile(f, count)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def row_check_errors(A, B, C, m, k, n):
    r = [fsum(mpf(B[kk * n + j]) for j in range(n)) for kk in range(k)]
    out = []
    for i in range(m):
        exact = fsum(mpf(A[i * k + kk]) * r[kk] for kk in range(k))
        lanes = [0.0] * LANES
        for j in range(n):
            lanes[j % LANES] += C[i * n + j]
        h = LANES // 2
        while h >= 1:
            for l in range(h):
                lanes[l] += lanes[l + h]
            h //= 2
        s = lanes[0]
        out.append(float(abs(mpf(s) - exact)))
    return out


def main():
    folder, m, k, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    mp.dps = 100
    A, B, C = load(f"{folder}/A.f64", m * k), load(f"{folder}/B.f64", k * n), load(f"{folder}/C.f64", m * n)
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = row_check_errors(A, B, C, m, k, n)
        best = min(best, time.perf_counter() - t0)
    print(f"{best:.9f}")
    for e in out:
        print(repr(e))


if __name__ == "__main__":
    main()
