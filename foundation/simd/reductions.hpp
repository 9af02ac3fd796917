// Reductions along a contiguous row, vectorized and dispatched at run time
// (simd_level.hpp): a sum with a weighted sum, two dot products sharing one
// operand, a sum with the maximum and minimum (alone or fused with the dot
// products), a row's sums fused with a column-sum update, column
// references over a block of rows, and columns' sums and extrema. The ABFT
// checksum engine uses them for each row of C (C_i r1, C_i r2, its share of
// the column sums), of A (A_i (B r1), A_i (B r2) and V-ABFT's statistics, in
// one read) and of B (the column references (c A) B_j), and at encoding (c A
// down A's rows, V-ABFT's column moments); the MPFR ground truth uses
// sum_and_weighted for the row sums whose error it measures.
//
// Every version, scalar included, runs one fixed order: lane l of L (64 fp32
// or 32 fp64 values: four AVX-512 registers, eight AVX2, sixteen SSE2)
// accumulates the elements j = l (mod L) in order, with FMA for products;
// the lanes are then folded by halves (l += l + L/2, then L/4, ... 1). So
// all versions give the same bits, on any CPU; the four registers are four
// independent chains, which is what lets a sum run at the speed of memory.
// The sums differ from a sequential sum in rounding only, within the bound
// derived in METHODOLOGY.md ("Vectorized checks"); the sequential loops they
// replaced are the reference twins in tests/test_simd_reductions.cpp. The
// elementwise kernels (column sums, column references) keep the scalar
// loops' order exactly.
#pragma once
#include <cstdint>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

template <class T>
struct reduction_kernels {
  // sum_j x[j], j < n.
  T (*sum)(const T* x, int64_t n);
  // s = sum_j x[j]; sw = sum_j w[j] x[j] (FMA), j < n.
  void (*sum_and_weighted)(const T* x, const T* w, int64_t n, T* s, T* sw);
  // d1 = sum_j x[j] y1[j]; d2 = sum_j x[j] y2[j] (FMA), j < n.
  void (*dot2)(const T* x, const T* y1, const T* y2, int64_t n, T* d1, T* d2);
  // sum_j x[j] (in T, as sum; returned as fp64); max and min ignoring NaNs
  // (-inf / +inf when every value is NaN), the values std::max / std::min
  // would give, up to the sign of a zero (the lanes' extremes are folded by
  // halves as the sums are, a tie keeping the lower lane's).
  void (*sum_max_min)(const T* x, int64_t n, double* sum, double* max, double* min);
  // dot2 and sum_max_min of x in one read (a row of A: its reference
  // checksums and V-ABFT's statistics); the bits of the two kernels.
  void (*dot2_sum_max_min)(const T* x, const T* y1, const T* y2, int64_t n, T* d1, T* d2, double* sum, double* max,
                           double* min);
  // sum_and_weighted, and col[j] += x[j] (one add per element, so the same
  // bits as a sequential column sum over the rows): a row of C read once
  // for its row checksums and its share of the column checksums.
  void (*sums_and_column)(const T* x, const T* w, int64_t n, T* s, T* sw, T* col);
  // Two rows, x and x + ld, at once (w read once for both): s[0], sw[0] and
  // s[1], sw[1] are sum_and_weighted's of each row; unless col is null,
  // col[j] = (col[j] + x[j]) + x[ld + j], the two rows' adds in order. The
  // bits of two calls of sums_and_column (or sum_and_weighted) row by row.
  void (*sums_and_column2)(const T* x, int64_t ld, const T* w, int64_t n, T* s, T* sw, T* col);
  // For r = 0 .. rows-1 in order, j < n: y1[j] = fma(a1[r], x[r ld + j], y1[j])
  // and y2[j] = fma(a2[r], x[r ld + j], y2[j]): elementwise, so the same bits
  // as the scalar loops, with y1 and y2 read and written once per call.
  void (*axpy2_rows)(const T* a1, const T* a2, const T* x, int64_t ld, int64_t rows, int64_t n, T* y1, T* y2);
  // For r = 0 .. rows-1 in order, j < n, v = double(x[r ld + j]): sum[j] += v,
  // max[j] = std::max(max[j], v), min[j] = std::min(min[j], v): elementwise,
  // the scalar loop's bits (V-ABFT's column moments at encoding).
  void (*column_sum_max_min)(const T* x, int64_t ld, int64_t rows, int64_t n, double* sum, double* max, double* min);
};

// The kernels of one level (which the CPU must support), or of the active one.
template <class T>
const reduction_kernels<T>& reduction_kernels_for(simd_level l);
template <class T>
const reduction_kernels<T>& active_reduction_kernels();

// The lanes of the fixed order (L above).
template <class T>
constexpr int reduction_lanes = int(256 / sizeof(T));

}  // namespace sdc
