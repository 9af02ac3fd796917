// A GEMM workload cell, typed once from the suite's axis values: the
// dtype, distribution, shape, accumulation order, fault axes, target and
// weights gemm_workload.cpp's runner and checks use.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "foundation/formats/block_scaled.hpp"
#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/block_target.hpp"
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

// Block-scaled cells (issue 69; METHODOLOGY "Block-scaled GEMM"): where the
// checks' checksums are encoded (the `encode` axis: on the unquantized fp32
// inputs, or on the dequantized quantized ones) and which output they check
// (`check_at`: the fp32 accumulator, or the output after re-quantization to
// `out_quant`).
enum class encode_point { before_quant, after_quant };
enum class check_point { before_output_quant, after_output_quant };
encode_point parse_encode_point(const std::string& v);
check_point parse_check_point(const std::string& v);
const char* encode_point_name(encode_point p);
const char* check_point_name(check_point p);
// "none" or a block format's name (null for none).
const block_format* parse_out_quant(const std::string& v);
// Whether a dtype value names a block-scaled format.
bool is_block_dtype(const std::string& v);

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
  // Block-scaled cells: the format (dtype and out_fmt are then fp32: what the
  // checks see is dequantized), the part of A or B a fault lands in, the
  // placements; null block: a plain GEMM, the rest at their defaults.
  const block_format* block = nullptr;
  block_part part = block_part::code;
  encode_point encode = encode_point::after_quant;
  check_point check_at = check_point::before_output_quant;
  const block_format* out_quant = nullptr;
};

// The cell's axes (dtype, distribution, shape, accumulation, fault, bit,
// target, site, weights, faults_per_pair); bad values are errors naming them.
gemm_cell parse_gemm_cell(const cell& c);

// Format of the tensor a target names (acc: the fp32 accumulator; a
// block-scaled cell's: its part's), and its dimensions.
const format& target_format(const gemm_cell& g);
inline std::pair<int64_t, int64_t> target_dims(const gemm_cell& g) {
  if (g.block) {
    const int64_t nb = (g.shape.k + g.block->block - 1) / g.block->block;
    const bool a = g.target == gemm_target::A;
    if (g.part == block_part::tensor_scale) return {1, 1};
    if (g.part == block_part::block_scale) return a ? std::pair{g.shape.m, nb} : std::pair{nb, g.shape.n};
  }
  if (g.target == gemm_target::A) return {g.shape.m, g.shape.k};
  if (g.target == gemm_target::B) return {g.shape.k, g.shape.n};
  return {g.shape.m, g.shape.n};
}

}  // namespace sdc
