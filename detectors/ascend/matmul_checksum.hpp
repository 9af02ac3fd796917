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
//   is not); if one is, `matmul(a, b, out=c)` recomputes C on the same device
//   and the call fails iff some row's mean |C| differs from the recomputed
//   one's (torch.any(c_mean != c_mean2); NaN != NaN). Its reductions are over
//   dim -1, so a batched call (attention's [B, H, T, .] products) is one check:
//   the min ratio one decision over every row of every batch. Ours recomputes
//   with the training GEMMs' kernel (sequential fp32, rounded once): a clean
//   product, or a transient fault's, comes back clean; where the device
//   repeats the fault (`recompute_repeats`: a permanent fault, set by the
//   workload) the recomputation is C's bits again, so only a NaN row mean
//   tells. The original also writes the recomputed product into C, repairing
//   the training run; ours only observes (a detector must not change the run
//   the other detectors are scored on).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "protocol/detector.hpp"
#include "protocol/views/training_view.hpp"

namespace sdc {

struct matmul_operands {
  int64_t m = 0, k = 0, n = 0;
  const float* a = nullptr;  // batch x m x k
  const float* b = nullptr;  // batch x k x n
  const float* c = nullptr;  // batch x m x n
  bool bf16 = false;         // C is held in bf16 (intermediates and the recompute round to it)
  int64_t batch = 1;         // products back to back, checked as one call (rows: batch x m)
  bool recompute_repeats = false;  // recomputing on C's device gives C's bits (a recurring fault changed C)
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

// A training GEMM record as the check's operands.
matmul_operands checksum_operands(const gemm_record& g);

// Which of a step's GEMMs a CheckSum checks (`scope`). original: each
// original's own. torch_npu: the torch.matmul / Tensor.matmul calls with two
// bf16 operands (asd.py _trigger_matmul_decorator,
// _trigger_tensor_matmul_decorator): in our model the forward pass's two
// attention products per block, each one batched call; never nn.Linear /
// F.linear, the `@` operator (Tensor.__matmul__ is C++, not the patched
// attribute) nor autograd's backward GEMMs. mindspore: the 2-D bf16 MatMul
// nodes (checksum.cc), forward and backward: every linear GEMM of our model,
// the same set as `linear`. linear (variant): every linear GEMM, forward and
// backward, under either rule.
enum class checksum_scope { original, linear };
checksum_scope parse_checksum_scope(const std::string& text);
bool checks_attention(checksum_variant v, checksum_scope s);
const std::vector<gemm_record>& checksum_records(const training_step& s, checksum_variant v, checksum_scope sc);
// The step's work it asks for (detector::needs()); nothing when off.
detector_needs checksum_needs(checksum_variant v, checksum_scope s, bool on);

}  // namespace sdc
