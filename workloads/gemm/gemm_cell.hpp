// A GEMM workload cell, typed once from the suite's axis values: the
// dtype, distribution, shape, accumulation order, fault axes, target and
// weights gemm_workload.cpp's runner and checks use.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/fault_axes.hpp"
#include "protocol/workload.hpp"
#include "workloads/gemm/weight_file.hpp"

namespace sdc {

// Where a fault lands (the `target` axis): an input after encoding, the stored
// output, or the fp32 accumulator of a bf16 / fp16 GEMM.
enum class gemm_target { A, B, C, acc };
// "A", "B", "C" or "acc"; a value_error naming them else.
gemm_target parse_gemm_target(const std::string& v);
const char* gemm_target_name(gemm_target t);

struct gemm_cell : typed_cell {
  int64_t faults_per_pair = 1;
  std::shared_ptr<const weight_matrix> weights;  // B from a file, or null
  std::string weights_spec;                       // the `weights` value (none, file(...))
  const format* dtype;
  const format* out_fmt;
  distribution dist;
  gemm_shape shape;
  accumulation_order order;
  fault_axes faults;  // fault, bit, site
  gemm_target target = gemm_target::C;
};

// The cell's axes (dtype, distribution, shape, accumulation, fault, bit,
// target, site, weights, faults_per_pair); bad values are errors naming them.
gemm_cell parse_gemm_cell(const cell& c);

// Format of the tensor a target names (acc: the fp32 accumulator), and its dimensions.
inline const format& target_format(const gemm_cell& g) { return g.target == gemm_target::acc ? fp32() : *g.dtype; }
inline std::pair<int64_t, int64_t> target_dims(const gemm_cell& g) {
  if (g.target == gemm_target::A) return {g.shape.m, g.shape.k};
  if (g.target == gemm_target::B) return {g.shape.k, g.shape.n};
  return {g.shape.m, g.shape.n};
}

}  // namespace sdc
