// block_gemm's products with the block sums taken in double (block_gemm.hpp):
// the training workload's MXFP8 GEMMs, which the integer kernel's per-output
// dot products made about 100x slower than the fp32 kernel. Why it gives the
// same bits: every finite code is an integer times 2^-f (block_gemm.cpp), so
// a product of two codes is an integer times 2^-2f and a block's sum of 32
// of them an integer of at most 41 bits (E4M3: 448^2 2^18 32 < 2^41; the
// FP6, FP4 and INT8 types need fewer) at one exponent: double holds every
// partial sum exactly, in any order. An E8M0 scale is a power of two and an
// E4M3 scale has 4 significant bits, so sum x sa x sb is exact in double as
// well, and its one conversion to fp32 rounds to nearest even with fp32's
// subnormals and overflow, as fp32_from_scaled_integer does. E5M2 products
// reach 2^63.6 units: those GEMMs go to the integer kernel. A NaN code or
// scale makes the block NaN either way. tests/test_block_gemm.cpp compares
// the two bit for bit.
#include <cmath>
#include <vector>

#include "foundation/errors.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"

namespace sdc {

void block_gemm_double(const block_tensor& A, const block_tensor& B, float* C) {
  if (!A.fmt || A.fmt != B.fmt || A.axis != 1 || B.axis != 0 || A.cols != B.rows) return block_gemm(A, B, C);  // its checks
  const block_format& f = *A.fmt;
  if (f.elem == elem_type::fp8_e5m2) return block_gemm(A, B, C);
  std::vector<double> code(256), scale(256);
  for (int c = 0; c < 256; ++c) code[size_t(c)] = decode_element(f.elem, uint8_t(c)), scale[size_t(c)] = decode_scale(f.scale, uint8_t(c));
  const int64_t m = A.rows, k = A.cols, n = B.cols, nb = A.blocks_along(), bs = f.block;
  std::vector<double> bv(size_t(k * n));
  for (size_t x = 0; x < bv.size(); ++x) bv[x] = code[B.codes[x]];
  const float alpha = f.tensor_scale ? A.tensor_scale * B.tensor_scale : 1.0f;
  std::vector<double> s(static_cast<size_t>(n));
  std::vector<float> acc(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t blk = 0; blk < nb; ++blk) {
      std::fill(s.begin(), s.end(), 0.0);
      const int64_t k0 = blk * bs, k1 = std::min(k, k0 + bs);
      for (int64_t kk = k0; kk < k1; ++kk) {  // exact: any order gives these sums
        const double av = code[A.codes[size_t(i * k + kk)]];
        const double* brow = &bv[size_t(kk * n)];
        for (int64_t j = 0; j < n; ++j) s[size_t(j)] += av * brow[j];
      }
      const double sa = scale[A.scales[size_t(i * nb + blk)]];
      const uint8_t* sb = &B.scales[size_t(blk * n)];
      for (int64_t j = 0; j < n; ++j) acc[size_t(j)] += float(s[size_t(j)] * sa * scale[sb[j]]);
    }
    for (int64_t j = 0; j < n; ++j) C[size_t(i * n + j)] = f.tensor_scale ? acc[size_t(j)] * alpha : acc[size_t(j)];
  }
}

}  // namespace sdc
