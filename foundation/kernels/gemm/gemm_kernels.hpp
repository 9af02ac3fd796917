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
// changes speed, never bits (results/bench/vabft_overhead_xeon.txt).
//   generic  depth chunks of 2 KiB of a row of A (512 fp32, 256 fp64 steps),
//            no software prefetch (measured on AMD EPYCs, AVX2 and Zen 5).
//   intel    the micro-kernel asks for packed B 8 depth steps ahead, and
//            depth chunks are 512 steps for both types (4 KiB fp64 rows), so
//            fp64 loads and stores each tile of C half as often. On an Intel
//            Xeon with AVX-512 the prefetch made fp32 2-10 % faster at n =
//            512-4096 and fp64 up to 4 % at 512-2048; the fp64 chunks another
//            2-5 % at n = 2048-4096 (no change at 512, about 1 % at 1024;
//            fp32's chunk of 1024 gained nothing); and 192 rows of A with 1 MiB
//            of packed B per L2 block (96 and 512 KiB generic): fp32 2-3 %
//            faster at n = 4096 and up to 1 % at 2048, fp64 0-3 % at
//            2048-4096; and, with AVX-512, a tile of 14 rows (28 accumulators:
//            per 28 FMAs two loads of B and 14 broadcasts, not per 24) and 196
//            rows of A: the micro-kernel alone about 5 % faster with its data
//            in L1, the fp32 GEMM 1-4 % at n = 2048-4096 against oneDNN's
//            sgemm, fp64 level. On an AMD EPYC family 26 (Zen 5, AVX-512,
//            1 MiB of L2) the whole intel tuning took 0.97-1.01 x generic's
//            time at n = 512-1024 but 1.01-1.10 x at 2048-4096, and its 14-row
//            tile alone (generic's blocking) 0.98-0.995 x at 512-1024 and
//            1.00-1.02 x at 2048-4096 (results/notes/vabft_overhead_bench.md;
//            0.996-1.006 x at 512-2048 in a second, shuffled measurement,
//            results/bench/vabft_overhead.txt): generic stays there.
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
