// The plain twin of block_gemm (block_gemm.hpp): every element and scale
// decoded to double (exact), each block's products summed in MPFR at 256 bits
// (exact: the products span under 2^140), times the two scales (exact), and
// rounded once by mpfr_get_flt; the blocks' fp32 values added in order.
#include <mpfr.h>

#include <vector>

#include "foundation/errors.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"

namespace sdc {

void block_gemm_reference(const block_tensor& A, const block_tensor& B, float* C) {
  if (!A.fmt || A.fmt != B.fmt || A.axis != 1 || B.axis != 0 || A.cols != B.rows)
    throw value_error("block_gemm_reference: expected A (m x k, along rows) and B (k x n, down columns) in one format");
  const block_format& f = *A.fmt;
  const int64_t m = A.rows, k = A.cols, n = B.cols, bs = f.block;
  const int64_t nb = (k + bs - 1) / bs;
  mp_value sum, term, scale;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t blk = 0; blk < nb; ++blk) {
        mpfr_set_zero(sum.get(), 1);
        for (int64_t x = blk * bs; x < std::min(k, (blk + 1) * bs); ++x) {
          mpfr_set_d(term.get(), decode_element(f.elem, A.codes[size_t(i * k + x)]), MPFR_RNDN);
          mpfr_mul_d(term.get(), term.get(), decode_element(f.elem, B.codes[size_t(x * n + j)]), MPFR_RNDN);
          mpfr_add(sum.get(), sum.get(), term.get(), MPFR_RNDN);
        }
        mpfr_set_d(scale.get(), decode_scale(f.scale, A.scales[size_t(i * nb + blk)]), MPFR_RNDN);
        mpfr_mul_d(scale.get(), scale.get(), decode_scale(f.scale, B.scales[size_t(blk * n + j)]), MPFR_RNDN);
        mpfr_mul(sum.get(), sum.get(), scale.get(), MPFR_RNDN);
        acc += mpfr_get_flt(sum.get(), MPFR_RNDN);
      }
      C[size_t(i * n + j)] = f.tensor_scale ? acc * (A.tensor_scale * B.tensor_scale) : acc;
    }
}

}  // namespace sdc
