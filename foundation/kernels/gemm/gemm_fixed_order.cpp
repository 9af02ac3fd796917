// The fixed-order GEMM's entry points: the kernels of the active SIMD level
// (foundation/kernels/gemm/gemm_dispatch.hpp) with a per-thread workspace, and the
// row and column recomputations built on them.
#include <algorithm>
#include <vector>

#include "foundation/kernels/gemm/gemm_dispatch.hpp"

namespace sdc {

SDC_DECLARE_LEVEL_TABLES(fixed_order_kernels<float>, gemm_kernels_f32)
SDC_DECLARE_LEVEL_TABLES(fixed_order_kernels<double>, gemm_kernels_f64)

template <class T>
const fixed_order_kernels<T>& fixed_order_kernels_for(simd_level l) {
  if constexpr (std::is_same_v<T, float>)
    return table_for_level(l, "fixed-order GEMM", simd_scalar::gemm_kernels_f32, simd_avx2::gemm_kernels_f32,
                           simd_avx512::gemm_kernels_f32);
  else
    return table_for_level(l, "fixed-order GEMM", simd_scalar::gemm_kernels_f64, simd_avx2::gemm_kernels_f64,
                           simd_avx512::gemm_kernels_f64);
}
template const fixed_order_kernels<float>& fixed_order_kernels_for<float>(simd_level);
template const fixed_order_kernels<double>& fixed_order_kernels_for<double>(simd_level);

namespace {

template <class T>
void fixed_order_with(const fixed_order_kernels<T>& k, const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  thread_local std::vector<T> work;
  const bool pairwise = o.k == accumulation_order::kind::pairwise;
  const int64_t block = o.k == accumulation_order::kind::kblock ? o.block : 0;
  const int64_t need = pairwise ? k_pairwise_workspace : k.blocked_workspace(block);
  T* const w = line_aligned(work, need);
  if (pairwise) k.pairwise(A, B, C, s, w);
  else k.blocked(A, B, C, s, block, w);
}

template <class T>
void fixed_order_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  static const fixed_order_kernels<T>& k = fixed_order_kernels_for<T>(active_simd_level());
  fixed_order_with(k, A, B, C, s, o);
}

// C row i = A_i B: a 1 x n x k product on row i alone.
template <class T>
void row_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t i) {
  fixed_order_impl(A + i * s.k, B, C + i * s.n, gemm_shape{1, s.n, s.k}, o);
}

// C column j = A B_j: m dot products sharing B_j. Eight rows run as
// independent FMA chains side by side, each in its own element's order
// (sequential, or k-blocks with partial sums); pairwise falls back to the
// reference dot product. Bit-identical to the same column of a full product (tested).
template <class T>
void col_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t j) {
  thread_local std::vector<T> bcol;
  bcol.resize(size_t(s.k));
  for (int64_t k = 0; k < s.k; ++k) bcol[size_t(k)] = B[k * s.n + j];
  if (o.k == accumulation_order::kind::pairwise) {
    for (int64_t i = 0; i < s.m; ++i) C[i * s.n + j] = dot_in_order(A + i * s.k, 1, bcol.data(), 1, s.k, o);
    return;
  }
  constexpr int lanes = 8;
  const bool sequential = o.k != accumulation_order::kind::kblock;
  const int64_t block = sequential ? s.k : o.block;
  for (int64_t i0 = 0; i0 < s.m; i0 += lanes) {
    const int rows = int(std::min<int64_t>(lanes, s.m - i0));
    T total[lanes] = {}, part[lanes];
    for (int64_t k0 = 0; k0 < s.k; k0 += block) {
      for (int r = 0; r < lanes; ++r) part[r] = 0;
      const int64_t k1 = std::min(s.k, k0 + block);
      for (int64_t k = k0; k < k1; ++k)
        for (int r = 0; r < rows; ++r) part[r] = std::fma(A[(i0 + r) * s.k + k], bcol[size_t(k)], part[r]);
      // Sequential order is one chain: its partial is the result. kblock adds
      // each partial into the total, as the reference does (0 + -0 is +0).
      for (int r = 0; r < rows; ++r) total[r] = sequential ? part[r] : total[r] + part[r];
    }
    for (int r = 0; r < rows; ++r) C[(i0 + r) * s.n + j] = total[r];
  }
}

}  // namespace

void gemm_row_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_row_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_col_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}
void gemm_col_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}

void gemm_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}
void gemm_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}

void gemm_fixed_order_at(simd_level l, const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  fixed_order_with(fixed_order_kernels_for<float>(l), A, B, C, s, o);
}
void gemm_fixed_order_at(simd_level l, const double* A, const double* B, double* C, gemm_shape s, accumulation_order o) {
  fixed_order_with(fixed_order_kernels_for<double>(l), A, B, C, s, o);
}

}  // namespace sdc
