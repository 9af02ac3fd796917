// Reductions along a contiguous row, vectorized and dispatched at run time
// (simd_level.hpp): a sum with a weighted sum, two dot products sharing one
// operand, and a sum in fp64 with the maximum and minimum. The ABFT checksum
// engine uses them for each row of C (C_i r1, C_i r2), of A (A_i (B r1),
// A_i (B r2)) and V-ABFT's statistics of A; the MPFR ground truth uses the
// first for the row sums whose error it measures.
//
// Every version, scalar included, runs one fixed order: lane l of L (16 fp32
// or 8 fp64 values, one AVX-512 register) accumulates the elements j = l
// (mod L) in order, with FMA for products; the lanes are then folded by
// halves (l += l + L/2, then L/4, ... 1). AVX2 holds the L lanes in two
// registers. So all versions give the same bits, on any CPU. The sums differ
// from a sequential sum in rounding only, within the bound derived in
// METHODOLOGY.md ("Vectorized checks"); the sequential loops they replaced
// are the reference twins in tests/test_simd_reductions.cpp.
#pragma once
#include <cstdint>

#include "harness/simd/simd_level.hpp"

namespace sdc {

template <class T>
struct reduction_kernels {
  // sum_j x[j], j < n.
  T (*sum)(const T* x, int64_t n);
  // s = sum_j x[j]; sw = sum_j w[j] x[j] (FMA), j < n.
  void (*sum_and_weighted)(const T* x, const T* w, int64_t n, T* s, T* sw);
  // d1 = sum_j x[j] y1[j]; d2 = sum_j x[j] y2[j] (FMA), j < n.
  void (*dot2)(const T* x, const T* y1, const T* y2, int64_t n, T* d1, T* d2);
  // sum of double(x[j]), in L fp64 lanes (the lanes of T, so 16 for fp32);
  // max and min ignoring NaNs (-inf / +inf when every value is NaN), as
  // std::max / std::min in index order would.
  void (*sum_max_min)(const T* x, int64_t n, double* sum, double* max, double* min);
};

// The kernels of one level (which the CPU must support), or of the active one.
template <class T>
const reduction_kernels<T>& reduction_kernels_for(simd_level l);
template <class T>
const reduction_kernels<T>& active_reduction_kernels();

// The lanes of the fixed order (L above).
template <class T>
constexpr int reduction_lanes = int(64 / sizeof(T));

}  // namespace sdc
