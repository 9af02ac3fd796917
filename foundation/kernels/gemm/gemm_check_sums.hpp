// The protected GEMM (issue 34): the fixed-order GEMM that also computes
// every sum a checksum check of C = A B reads (detectors/gemm/abft_checksums.hpp,
// after 001 eqs. (1)-(11)), in that check's own orders, so that the check
// needs no separate pass over B or C and its verdict is the separate
// check's, bit for bit:
//   - as it first packs a row of A (first depth chunk, first column block):
//     the whole row through the separate check's own kernel
//     (foundation/simd/reductions.hpp's dot2_sum_max_min or dot2): A_i (B r1),
//     A_i (B r2) and, when asked, the row's sum, maximum and minimum;
//   - while it packs a block of B (once per element): per column, the
//     references (c1 A) B_j and (c2 A) B_j, FMA down the column in
//     foundation/simd/column_cascade.hpp's 8-row blocks and pairwise tree,
//     each block's partials in registers;
//   - C: where N is within one column block, each panel of rows once final
//     through the separate check's own kernel (sums_and_column or
//     sum_and_weighted); else as each finished tile leaves the micro-kernel,
//     read back from L1 (an edge tile from its local copy): per row, C_i r1
//     and C_i r2 (lanes j mod L), per column its sum (the column cascade).
//     gemm_check_sums_body.hpp has the kernel's side.
// Those orders do not depend on the SIMD level, so every level of the GEMM
// gives the same sums; tests/test_protected_gemm.cpp holds each level to the
// separate check. Orders: sequential and kblock(B) (the blocked kernel);
// pairwise has no fused form (value_error).
#pragma once
#include <cstdint>
#include <vector>

#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {

// What the check encoded once per weight, and what it wants.
template <class T>
struct check_sums_spec {
  const T* br1 = nullptr;  // k: B r1
  const T* br2 = nullptr;  // k: B r2
  const T* wn = nullptr;   // n: the weights of r2, w(j)
  const T* ca1 = nullptr;  // k: c1 A (read when columns)
  const T* ca2 = nullptr;  // k: c2 A
  bool row_stats = false;  // A's row sum, maximum and minimum
  bool columns = true;     // the column sums and references; false: rows only
};

template <class T>
struct check_sums {
  std::vector<T> s1, s2, row_ref, row_ref2;  // m: C_i r1, C_i r2, A_i (B r1), A_i (B r2)
  std::vector<double> a_sum, a_max, a_min;   // m, when row_stats
  std::vector<T> c1, col_ref, col_ref2;      // n, when columns: column sums of C, (c1 A) B_j, (c2 A) B_j
};

void gemm_fixed_order_checked(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o,
                              const check_sums_spec<float>& spec, check_sums<float>& out);
void gemm_fixed_order_checked(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o,
                              const check_sums_spec<double>& spec, check_sums<double>& out);
// The same on one variant's GEMM kernels (its level the CPU must support).
void gemm_fixed_order_checked_at(gemm_kernel_variant v, const float* A, const float* B, float* C, gemm_shape s,
                                 accumulation_order o, const check_sums_spec<float>& spec, check_sums<float>& out);
void gemm_fixed_order_checked_at(gemm_kernel_variant v, const double* A, const double* B, double* C, gemm_shape s,
                                 accumulation_order o, const check_sums_spec<double>& spec, check_sums<double>& out);

}  // namespace sdc
