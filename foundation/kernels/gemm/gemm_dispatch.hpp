// The fixed-order GEMM's kernels, compiled once per SIMD level
// (gemm_fixed_order_{scalar,avx2,avx512}.cpp from gemm_fixed_order_body.hpp,
// each with its instruction-set flags) and chosen at run time from the CPU's
// features (foundation/simd/simd_level.hpp), as BLIS does. Every level runs the
// same per-element order, so every level gives gemm_reference's bits
// (tests/test_gemm_kernels.cpp runs each level the CPU supports).
// The kernels allocate nothing: the caller passes the workspace.
#pragma once
#include <cstdint>

#include "foundation/simd/simd_level.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {

template <class T>
struct fixed_order_kernels {
  // Elements of workspace `blocked` needs for a k-block size (0: sequential).
  int64_t (*blocked_workspace)(int64_t block);
  // The cache-blocked kernel: sequential order (block 0) or k-blocks.
  void (*blocked)(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work);
  // The pairwise order; work holds k_pairwise_workspace elements.
  void (*pairwise)(const T* A, const T* B, T* C, gemm_shape s, T* work);
};
constexpr int64_t k_pairwise_strip = 64, k_pairwise_levels = 64;
constexpr int64_t k_pairwise_workspace = k_pairwise_strip * (k_pairwise_levels + 1);

template <class T>
const fixed_order_kernels<T>& fixed_order_kernels_for(simd_level l);

}  // namespace sdc
