// Faults inside a block-scaled tensor (foundation/formats/block_scaled.hpp).
// A fault's target is one part of it, seen as a fault_target so that every
// fault model, bit name and site rule applies as to any tensor:
//   code          an element's code: rows x cols of the element type
//                 (bits sign, exp1.., mant1.., or INT8's sign and bit0..bit6)
//   block_scale   a block's scale: scale_rows x scale_cols of E8M0 (exp1..exp8)
//                 or E4M3 (sign, exp1..exp4, mant1..mant3)
//   tensor_scale  NVFP4's FP32 decode scale: 1 x 1 fp32
// Each record names the part and the elements whose dequantized value moved
// (a code: at most its element; a block scale: at most its block; the tensor
// scale: any element).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "foundation/formats/block_scaled.hpp"
#include "injectors/inject.hpp"

namespace sdc {

enum class block_part { code, block_scale, tensor_scale };
std::string_view block_part_name(block_part p);
// "code", "block_scale", "tensor_scale"; throws value_error naming them.
block_part parse_block_part(std::string_view text);

// The format of a part's bits: the element type's, the scale type's, or fp32.
const format& block_part_format(const block_tensor& t, block_part p);

class block_part_target final : public fault_target {
 public:
  // Throws value_error for the tensor scale of a format that has none.
  block_part_target(block_tensor& t, block_part p);
  const format& fmt() const override { return block_part_format(t_, p_); }
  int64_t rows() const override;
  int64_t cols() const override;
  uint64_t bits_at(int64_t i) const override;
  void set_bits(int64_t i, uint64_t bits) override;

 private:
  block_tensor& t_;
  block_part p_;
};

struct block_injection_record {
  block_part part = block_part::code;
  injection_record fault;        // index, row, col within the part; the code's or scale's bits and values
  std::vector<int64_t> moved;    // row-major elements whose dequantized fp32 bits changed, in order
  std::vector<float> old_values, new_values;  // theirs, before and after
};

// The elements a fault at index i of part p can move.
std::vector<int64_t> block_part_reach(const block_tensor& t, block_part p, int64_t i);

// One fault into part p of t (a one-element site rule; a directed flip
// redraws as inject() does), and what it moved.
block_injection_record inject_block(block_tensor& t, block_part p, const fault_spec& spec, rng& g);
// The model applied at every element a multi-element site rule picks in part
// p (inject_pattern), one record each.
std::vector<block_injection_record> inject_block_pattern(block_tensor& t, block_part p, const fault_spec& spec, rng& g);

}  // namespace sdc
