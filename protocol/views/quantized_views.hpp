// What the quantized-operator detectors of 004 see (workloads/quantized/):
// the int8 GEMM's C' = A x B' with the detectors' packed checksum columns, and
// the EmbeddingBag's table, batch and output.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "injectors/fault_model.hpp"
#include "protocol/episode.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"

namespace sdc {

// ---- int8 GEMM (004_0d1fcb03aeacfeeb.txt, Algorithm 1) ---------------------
//
// C' = A x B' with A u8 (m x k) and B' = [B | extra columns] s8: a detector
// that packs checksums with B (section IV-A3) asks for extra columns, fills them
// in `encode`, and finds their products in `extra` beside the data columns of C'.
struct int8_gemm_data {
  int64_t m = 0, n = 0, k = 0;
  const uint8_t* A = nullptr;
  int64_t lda = 0;
  const int8_t* B = nullptr;  // data columns of B', as the GEMM read them
  int64_t ldb = 0;
  const int32_t* C = nullptr;  // data columns of C'
  int64_t ldc = 0;
  const int32_t* extra = nullptr;  // this detector's columns of C' (leading dimension ldc); null without any
};

// Where an int8 GEMM fault lands: B (the s8 weights, after encoding) or C
// (the s32 result).
enum class int8_target { B, C };

// The fault a trial injects, for detectors that can state their detection
// probability in closed form (section IV-C): where it lands (target B or C,
// element row/col), the element's clean bits, and the model that changes them.
struct int8_fault_context {
  int8_target target = int8_target::B;
  int64_t row = -1, col = -1;
  uint64_t old_bits = 0;
  fault_model model;
  std::vector<int> bits;  // resolved: the bit axis, or bitflip_random's field
};

// Before the GEMM: the clean B (k x n) and, per detector slot, where its
// extra columns of B' go (k rows, leading dimension ld).
struct int8_encode_step final : step_view {
  view_kind kind() const override { return view_kind::int8_gemm; }
  const int8_t* B = nullptr;
  int64_t k = 0, n = 0, ldb = 0;
  std::vector<int8_t*> ext;  // per detector slot (null: no columns)
  int64_t ld_ext = 0;
};

// After the GEMM: per detector slot, its view of C' (its own extra columns);
// on faulty steps also the clean data and the fault (for closed forms).
struct int8_gemm_step final : step_view {
  view_kind kind() const override { return view_kind::int8_gemm; }
  std::vector<int8_gemm_data> checked, clean;  // per detector slot
  const int8_fault_context* fault = nullptr;
};

// ---- EmbeddingBag (004, Algorithm 2) ---------------------------------------

struct embedding_bag_data {
  const quantized_table* table = nullptr;  // as the kernel read it; C_T[i] stored with each row
  const bag_batch* batch = nullptr;
  const float* out = nullptr;  // bags x dim
};

// One bag's check: the two sides of eq. (5) as the detector computed them.
struct bag_check {
  double rsum = 0, csum = 0;
  bool flagged = false;
};

struct embedding_bag_step final : step_view {
  view_kind kind() const override { return view_kind::embedding_bag; }
  embedding_bag_data data;
};

}  // namespace sdc
