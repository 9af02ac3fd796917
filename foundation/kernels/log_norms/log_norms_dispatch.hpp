// The log-norm kernels as a table per SIMD level (log_norms_body.hpp,
// compiled by log_norms_{scalar,avx2,avx512}.cpp), chosen at run time
// (foundation/simd/simd_level.hpp).
#pragma once
#include <cstdint>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

struct log_norm_kernels {
  double (*sum_squares)(const float* x, int64_t n);
  double (*sum_squares_bf16)(const uint16_t* x, int64_t n);
};

const log_norm_kernels& log_norm_kernels_for(simd_level l);

}  // namespace sdc
