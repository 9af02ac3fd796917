// What GEMM detectors see (workloads/gemm/gemm_workload.cpp makes it): the
// inputs and output of C = A x B, and for incremental verification what a
// fault changed.
#pragma once
#include <cstdint>

#include "foundation/formats/block_scaled.hpp"
#include "foundation/formats/format.hpp"
#include "protocol/episode.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {

// What a GEMM detector sees. T is the accumulator type (float, or double for fp64).
template <class T>
struct gemm_data {
  const format* dtype = nullptr;    // inputs' format (values held exactly in T)
  const format* out_fmt = nullptr;  // output format (== dtype here)
  gemm_shape shape;
  accumulation_order order;
  const T* A = nullptr;  // m x k, as the kernel read it
  const T* B = nullptr;  // k x n
  const T* C = nullptr;  // m x n, as stored (rounded to out_fmt)
  const T* acc = nullptr;  // m x n accumulator before output rounding (== C when none)
  // For clean trials when a detector asks for it (needs_exact_row_errors):
  // per row i, |sum_j C_ij (the check's lane order, accumulator precision) - exact(A_i B 1)|
  // with the exact value from MPFR: the actual verification difference that
  // threshold tightness is measured against.
  const double* exact_row_errors = nullptr;
  // A block-scaled GEMM's quantized inputs as the kernel read them (A along
  // rows, B down columns), for checks of the codes and scales; null otherwise.
  const block_tensor* a_blocks = nullptr;
  const block_tensor* b_blocks = nullptr;
};

// What a fault changed, for incremental verification: one element of C (or
// of the accumulator), a row of A (so row i of C), or a column of B (so column j of C).
struct gemm_change {
  enum class kind { output_element, a_row, b_col };
  kind k = kind::output_element;
  int64_t i = -1, j = -1;
};

// One GEMM step: the clean inputs (what `encode` reads, once per matrix
// pair), the data to verify (clean, or with the fault), and, for faults of a
// pair verified incrementally, what the fault changed.
template <class T>
struct gemm_step final : step_view {
  view_kind kind() const override { return view_kind::gemm; }
  gemm_data<T> clean;
  gemm_data<T> checked;
  bool incremental = false;  // verify_change against the pair's baseline
  gemm_change change;
  // Clean episodes when a detector asks: the exact row-check errors (MPFR),
  // computed when the step's views are made, outside the detectors' timed calls.
  const double* exact_row_errors = nullptr;
};

}  // namespace sdc
