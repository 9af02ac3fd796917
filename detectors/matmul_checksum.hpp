// 003's CheckSum of a bf16 matmul C = A B, as each original computes it
// (003_dc12117c3d941011.txt: "CheckSum verifies the calculation results of the
// MatMul operator of bfloat16 data type"). Common to both, per row i:
//   c_sum_i = sum_j C_ij and c1_i = A_i (B e), in fp32; error_i = |c_sum_i - c1_i|;
//   |C|, its row max and row mean in C's dtype (bf16: rounded), ratio_i =
//   max_i / mean_i in C's dtype, and a NaN ratio makes the min over rows NaN;
//   bound_i = max_i 2^-8 sqrt(n) when every row is spiky, else mean_i 2^-8 n.
// mindspore (ccsrc/tools/silent_detect/checksum/checksum_kernel.cc,
//   CheckSumKernel::CalculateErrorTotal and LaunchKernelAsync; checksum.cc
//   CheckSumViaCallback): spiky iff min ratio >= 5; the bound is one multiply
//   in C's dtype by the fp32 scalar sqrt(n)/256 or n/256; the GEMM fails iff
//   NOT (max_i (error_i - bound_i) < 1e-20): a NaN anywhere fails it.
// torch_npu (torch_npu/asd/checksum.py, _matmul_checksum): spiky iff min ratio
//   > 5; the bound is (max_i 2^-8) sqrt(n) (or (mean_i 2^-8) n), each product
//   in C's dtype; a row is flagged iff error_i - 5 bound_i > 5e-20 (a NaN row
//   is not); if one is, C is recomputed and the GEMM fails iff some row's mean
//   |C| differs from the recomputed one's (NaN != NaN). Ours recomputes with the
//   training GEMMs' kernel (sequential fp32, rounded once), so a transient
//   fault's product comes back clean. The original also writes the recomputed
//   product into C, repairing the training run; ours only observes (a detector
//   must not change the run the other detectors are scored on).
#pragma once
#include <cstdint>
#include <vector>

namespace sdc {

struct matmul_operands {
  int64_t m = 0, k = 0, n = 0;
  const float* a = nullptr;  // m x k
  const float* b = nullptr;  // k x n
  const float* c = nullptr;  // m x n
  bool bf16 = false;         // C is held in bf16 (intermediates and the recompute round to it)
};

struct checksum_result {
  bool failed = false;
  int64_t worst_row = -1;  // the row with the largest error_i / bound_i (NaN rows first)
  double worst_ratio = 0;  // its error_i / (factor bound_i); factor 5 for torch_npu
  bool rows_flagged = false;  // torch_npu: the check flagged a row (so C was recomputed)
};

enum class checksum_variant { mindspore, torch_npu };

// Per row i: error_i, max |C_i| (NaN if any element is) and mean |C_i| (in C's dtype).
struct checksum_rows {
  std::vector<float> error, cmax, cmean;
};

// The check as the training detectors run it: the rows' sums interleaved,
// R rows at once (each sum still in order, so the same bits as the
// reference twin; tests/test_silent_check.cpp pins them equal).
checksum_result matmul_checksum(const matmul_operands& g, checksum_variant v);
checksum_rows matmul_checksum_rows(const matmul_operands& g);
// The plain reference twin: one row after another.
checksum_result matmul_checksum_reference(const matmul_operands& g, checksum_variant v);
checksum_rows matmul_checksum_rows_reference(const matmul_operands& g);

}  // namespace sdc
