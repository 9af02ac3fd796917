// The plain twin of block_scaled.hpp: the originals' formulas written out
// literally, for the tests to hold quantize and dequantize against, code by
// code. MX follows microxcaling's pure-PyTorch path (mx/mx_ops.py::_quantize_mx,
// mx/elemwise_ops.py::_quantize_elemwise_core and _round_mantissa: log2,
// floor, the scaled mantissa rounded with floor(|x| + 0.5), a clamp), in
// double, and finds each code by searching every code of the element type for
// the value; NVFP4 follows TransformerEngine's Python reference
// (custom_recipes/reference_nvfp4.py::_quantize_blockwise_reference and its
// cast_to_fp4x2 thresholds), in fp32. Slow by design: tests only.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "foundation/formats/block_scaled.hpp"

namespace sdc {

// A code's value from its fields: sign, exponent, mantissa per the element
// type's widths and bias (OCP: FP6/FP4 have no specials; E4M3's S.1111.111 is
// NaN; E5M2 is IEEE-like), or two's complement times 2^-6 for INT8.
double decode_element_reference(elem_type t, uint8_t code);
double decode_scale_reference(scale_type t, uint8_t code);

block_tensor quantize_reference(std::span<const float> x, int64_t rows, int64_t cols, int axis,
                                const block_format& fmt, const quantize_options& opt = {});
std::vector<float> dequantize_reference(const block_tensor& t);

}  // namespace sdc
