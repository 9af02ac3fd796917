// 003's CheckSum of a matmul C = A B, as torch_npu's `matmul_checksum` and
// MindSpore's silent_detect compute it (003_dc12117c3d941011.txt: "CheckSum
// verifies the calculation results of the MatMul operator of bfloat16 data
// type"): per row i, in fp32,
//   c_sum_i = sum_j C_ij,  c1_i = sum_k A_ik (sum_j B_kj),
//   error_i = |c_sum_i - c1_i|,
//   bound_i = mean_j|C_ij| 2^-8 n, or max_j|C_ij| 2^-8 sqrt(n) when every row
//             is spiky (min_i max|C_i.| / mean|C_i.| > 5),
// and the GEMM fails iff error_i - factor * bound_i > 1e-20 for some row. As in
// the originals a NaN in C makes error NaN and does not fail the comparison.
// The torch_npu variant multiplies the bound by 5 and, before blaming, checks a
// recomputed product (ours: a plain fp32 triple loop rounded to C's format):
// a failure the clean product shares is the bound's, not a fault's.
#pragma once
#include <cstdint>

namespace sdc {

struct matmul_operands {
  int64_t m = 0, k = 0, n = 0;
  const float* a = nullptr;  // m x k
  const float* b = nullptr;  // k x n
  const float* c = nullptr;  // m x n
  bool bf16 = false;         // C is held in bf16 (the recompute rounds to it)
};

struct checksum_result {
  bool failed = false;
  int64_t worst_row = -1;
  double worst_ratio = 0;  // max_i error_i / (factor bound_i)
  bool recomputed = false, recompute_failed = false;
};

enum class checksum_variant { mindspore, torch_npu };

// The check alone, with the bound multiplied by `factor`.
checksum_result matmul_checksum_rows(const matmul_operands& g, double factor);
// The originals' decision: MindSpore: the check; torch_npu: x5 bound, and a
// failure stands only if the recomputed product passes.
checksum_result matmul_checksum(const matmul_operands& g, checksum_variant v);

}  // namespace sdc
