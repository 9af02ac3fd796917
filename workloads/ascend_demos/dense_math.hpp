// Row-major fp32 products for 003's demo networks, each sum in one fixed
// order (ascending inner index), so a run is the same bits on every CPU:
// written here because the demos need no more than these three loops and a
// BLAS would choose its own order per CPU.
#pragma once
#include <span>

namespace sdc::demo003 {

// C[m x n] = A[m x k] B[k x n]
void matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n);
// C[m x n] = A^T B, A stored [k x m], B [k x n]
void matmul_tn(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n);
// C[m x n] = A B^T, A [m x k], B stored [n x k]
void matmul_nt(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n);

}  // namespace sdc::demo003
