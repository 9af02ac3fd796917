// GEMM kernels: C[m][n] = sum_k A[m][k] * B[k][n], row-major, accumulated in T
// (float for fp32/bf16/fp16 inputs, double for fp64).
//
// gemm_fixed_order: our cache-blocked, register-tiled kernel (GotoBLAS loop
//   nest, AVX-512/AVX2/scalar micro-kernel chosen at run time) whose per-element accumulation order is
//   fixed and selectable, so a fault's effect can be recomputed bit-identically
//   and other hardware's rounding modelled on this CPU:
//     sequential      acc = fma(a_k, b_k, acc) for k = 0..K-1 (CPU FMA loop)
//     kblock(B)       fp32 partial sums over blocks of B k's, added in order
//                     (tensor-core / NPU style accumulation)
//     pairwise        products rounded, summed as a balanced binary tree
//                     (left = largest power of two < n)
// gemm_reference:  the plain triple-loop twin, same orders; equal bit for bit.
// gemm_openblas:   OpenBLAS sgemm/dgemm (order unspecified), one thread.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

struct gemm_shape {
  int64_t m = 0, n = 0, k = 0;
  std::string text() const;  // "MxKxN": the papers' (M, K, N) order
};
// Parses "MxKxN" (the papers' (M, K, N) order); throws value_error.
gemm_shape parse_gemm_shape(std::string_view text);

struct accumulation_order {
  enum class kind { sequential, kblock, pairwise, openblas };
  kind k = kind::sequential;
  int block = 0;  // kblock
  std::string text() const;
};
accumulation_order parse_accumulation(std::string_view text);

// A tuning of the fixed-order GEMM's cache blocking for a kind of CPU; it
// changes speed, never bits. generic: the blocking for AMD EPYCs (AVX2, Zen 5);
// intel: larger depth chunks and blocks, a 14-row tile with AVX-512 and packed
// B prefetched, for Intel Xeons (gemm_tile_body.hpp has the constants; what
// each gained where: results/notes/gemm_kernels_bench.md).
enum class gemm_tuning { generic, intel };
struct gemm_kernel_variant {
  simd_level level = simd_level::scalar;
  gemm_tuning tuning = gemm_tuning::generic;
  std::string text() const;  // "avx512", "avx512+intel"
};
// The variant gemm_fixed_order uses: the active SIMD level; the tuning from
// SDCBENCH_GEMM_TUNING=generic|intel if set (else input_error naming it),
// else intel on Intel CPUs. Read once.
gemm_kernel_variant active_gemm_variant();
// Every variant this CPU runs: each supported level with each tuning (what
// the tests run).
std::vector<gemm_kernel_variant> supported_gemm_variants();

void gemm_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o);
void gemm_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o);
// The same with one variant's kernels (its level the CPU must support).
void gemm_fixed_order_at(gemm_kernel_variant v, const float* A, const float* B, float* C, gemm_shape s, accumulation_order o);
void gemm_fixed_order_at(gemm_kernel_variant v, const double* A, const double* B, double* C, gemm_shape s,
                         accumulation_order o);
void gemm_reference(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o);
void gemm_reference(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o);
void gemm_openblas(const float* A, const float* B, float* C, gemm_shape s);
void gemm_openblas(const double* A, const double* B, double* C, gemm_shape s);

// Dispatch on the order: openblas -> gemm_openblas, else gemm_fixed_order.
template <class T>
void gemm_run(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  if (o.k == accumulation_order::kind::openblas) gemm_openblas(A, B, C, s);
  else gemm_fixed_order(A, B, C, s, o);
}

// Recomputes, in a fixed order, only what a fault in A[i][*] or B[*][j] changes:
// row i of C (= A_i B) or column j of C (= A B_j), bit-identical to the same
// elements of a full gemm_fixed_order (the blocked kernel runs on the slice).
void gemm_row_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t i);
void gemm_row_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t i);
void gemm_col_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t j);
void gemm_col_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t j);

// One dot product in the given order (used to recompute a single element and by
// the reference): sum_k a[k*sa] * b[k*sb].
float dot_in_order(const float* a, int64_t sa, const float* b, int64_t sb, int64_t n, accumulation_order o);
double dot_in_order(const double* a, int64_t sa, const double* b, int64_t sb, int64_t n, accumulation_order o);

}  // namespace sdc
