// The int8 workloads' vectorized kernels as a table per SIMD level
// (int8_kernels_body.hpp, compiled by int8_kernels_{scalar,avx2,avx512}.cpp),
// chosen at run time (foundation/simd/simd_level.hpp). Raw pointers only, so the
// per-level files need no library code.
#pragma once
#include <cstdint>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

// A quantized table and a batch of bags as plain arrays (int8_kernels.hpp's
// quantized_table and bag_batch).
struct embedding_bag_args {
  const uint8_t* data;
  int64_t stride, code_bytes, dim;
  int bits;
  const int64_t* indices;
  const int64_t* offsets;
  const float* weights;  // null: plain sums
  int64_t bags, n_indices;
};

struct int8_kernels {
  // C (m x n, leading dimension ldc) = A (u8, m x k) x B, both given as
  // pairs of k (kp = ceil(k / 2) of them, 0 past k): a_pairs[i kp + p] =
  // A[i][2p] | A[i][2p + 1] << 16 (two int16 in an int32), b_pairs[p 2n + 2j + t]
  // = B[2p + t][j]. Each pair of products is summed exactly in int32
  // (vpmaddwd), so nothing saturates; the sums wrap mod 2^32 as the
  // reference's int64 sum cast to int32.
  void (*gemm_u8_s16pairs)(int64_t m, int64_t n, int64_t kp, const int32_t* a_pairs, const int16_t* b_pairs,
                           int32_t* C, int64_t ldc);
  int64_t (*row_sum_i32)(const int32_t* c, int64_t n);
  void (*requantize_u8)(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                        uint8_t* out, int64_t* row_sums);
  void (*embedding_bag)(const embedding_bag_args& a, float* out, int prefetch);
};

const int8_kernels& int8_kernels_for(simd_level l);

}  // namespace sdc
