// The block-scaled GEMM as the hardware computes it (issue 69's model; the
// OCP MX v1.0 text was not available to us, foundation/formats/CONFORMANCE.md): C = A x B with A
// (m x k) blocked along K (axis 1) and B (k x n) blocked along K (axis 0).
// Per output element and per K-block b, the exact sum of the element
// products times the two block scales, rounded once to fp32; the blocks'
// fp32 values are added in increasing b (our fixed order, one fp32 add per
// block). NVFP4's tensor scales multiply the accumulator last:
// C = acc * fp32(ts_A * ts_B) (TransformerEngine's alpha). A NaN or inf
// element or a NaN scale makes its block's value as IEEE arithmetic would.
// block_gemm is the integer kernel (exact block sums in int64 / int128);
// block_gemm_reference is its plain twin (each block summed in MPFR and
// rounded by mpfr_get_flt); they agree bit for bit (tests/test_block_gemm.cpp).
#pragma once
#include <cstdint>

#include "foundation/formats/block_scaled.hpp"

namespace sdc {

// Throws value_error unless A is m x k blocked along rows, B is k x n blocked
// down columns, both of one format. C: m x n, row-major.
void block_gemm(const block_tensor& A, const block_tensor& B, float* C);
void block_gemm_reference(const block_tensor& A, const block_tensor& B, float* C);
// Rows [r0, r1) and columns [c0, c1) of C only (what a fault in a row of A or
// a column of B moves), bit for bit what block_gemm gives there.
void block_gemm_part(const block_tensor& A, const block_tensor& B, float* C, int64_t r0, int64_t r1, int64_t c0, int64_t c1);

// The same bits as block_gemm, the block sums taken in double (exact for every
// element type but E5M2, which goes to block_gemm): block_gemm_double.cpp says why.
// The training workload's MXFP8 linear layers run on it.
void block_gemm_double(const block_tensor& A, const block_tensor& B, float* C);

// v * 2^e rounded once to fp32 (to nearest even; subnormals, overflow to inf).
float fp32_from_scaled_integer(__int128 v, int e);

}  // namespace sdc
