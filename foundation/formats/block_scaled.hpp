// Block-scaled formats: the OCP Microscaling (MX) formats as Microsoft's
// microxcaling emulates them (MXFP8 E4M3/E5M2, MXFP6 E3M2/E2M3, MXFP4 E2M1,
// MXINT8: one E8M0 scale per 32 elements) and NVIDIA's NVFP4 as
// TransformerEngine computes it (E2M1 codes, an E4M3 scale per 16 elements,
// an FP32 tensor scale). A quantized tensor is its codes (one byte per
// element: the element's bit pattern), its block scales (one byte per block)
// and, for NVFP4, the tensor scale. The rules and their sources are in
// METHODOLOGY.md ("Block-scaled formats"); foundation/formats/CONFORMANCE.md
// pins them against the originals row by row. The plain twin of quantize and
// dequantize is in block_scaled_reference.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "foundation/formats/format.hpp"

namespace sdc {

// The element types. int8 is MXINT8's: two's complement code k, value k * 2^-6.
enum class elem_type { fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3, fp4_e2m1, int8 };
enum class scale_type { e8m0, e4m3 };

struct block_format {
  std::string_view name;  // "mxfp8_e4m3", ..., "mxint8", "nvfp4"
  elem_type elem;
  scale_type scale;
  int block;          // elements per scale, along the blocked axis
  bool tensor_scale;  // NVFP4's per-tensor FP32 scale
};

// Every block format, in a fixed order; by name (throws value_error naming the known ones).
std::span<const block_format> all_block_formats();
const block_format& block_format_by_name(std::string_view name);

// The descriptor of an element type's codes (bits, fields, specials): fp8_e4m3
// and fp8_e5m2 are all_formats()' own; FP6 and FP4 are `finite` formats; int8
// is s8 (the code's two's complement bits; its value is decode * 2^-6).
const format& element_format(elem_type t);
// The descriptor of a scale's codes: the E8M0 format (`e8m0` specials), or fp8_e4m3.
const format& scale_format(scale_type t);
const format& e8m0();
std::string_view elem_type_name(elem_type t);

// The largest magnitude an element type holds (microxcaling
// mx/formats.py::_get_format_params max_norm: 448, 57344, 28, 7.5, 6, 127/64),
// and its emax (the exponent of the largest binade: 8, 15, 4, 2, 2, 0).
double elem_max_norm(elem_type t);
int elem_emax(elem_type t);

// Exact value of an element code (NaN for E4M3's S.1111.111 and E5M2's NaNs,
// +-inf for E5M2's infinities; INT8's 0x80, never produced, is -2.0).
double decode_element(elem_type t, uint8_t code);
// Exact value of a scale code: E8M0 2^(code - 127), 0xFF NaN; E4M3 as fp8_e4m3.
double decode_scale(scale_type t, uint8_t code);

// Element rounding. Default: the original's (MX: microxcaling's "nearest",
// ties away from zero; NVFP4: TransformerEngine's round to nearest even).
// `even` on an MX format is microxcaling's round="even". NVFP4 takes only even.
enum class block_rounding { ties_away, even };
// MX shared scale. floor: microxcaling's 2^(floor(log2 amax) - emax) (the
// default); rceil: TransformerEngine's MXFP8 scale, amax / max_norm rounded up
// to a power of two (variant "rceil"). NVFP4 has its own (E4M3) scale.
enum class mx_scale_rule { floor, rceil };

struct quantize_options {
  std::optional<block_rounding> rounding;  // nullopt: the format's original default
  mx_scale_rule scale_rule = mx_scale_rule::floor;
};

struct block_tensor {
  const block_format* fmt = nullptr;
  int64_t rows = 0, cols = 0;  // row-major; a vector is 1 x n
  int axis = 1;                // the blocked axis: 1 along a row (the last), 0 down a column
  std::vector<uint8_t> codes;  // rows * cols element codes
  std::vector<uint8_t> scales; // block scale codes, row-major over scale_rows() x scale_cols()
  float tensor_scale = 1;      // NVFP4: the FP32 decode scale s_global; 1 otherwise

  int64_t blocks_along() const;  // blocks on the blocked axis (a short last one counts)
  int64_t scale_rows() const { return axis == 1 ? rows : blocks_along(); }
  int64_t scale_cols() const { return axis == 1 ? blocks_along() : cols; }
  // The scale index of row-major element i.
  int64_t block_of(int64_t i) const;
  // The row-major elements that scale b covers, in order.
  std::vector<int64_t> elements_of_block(int64_t b) const;
};

// Quantizes the rows x cols row-major matrix x in blocks along `axis` (1 or
// -1: along each row; 0 or -2: down each column). Throws value_error when x's
// size is not rows * cols, the axis is not one of these, an option does not
// apply to the format, or (NVFP4) x holds NaN or inf.
block_tensor quantize(std::span<const float> x, int64_t rows, int64_t cols, int axis, const block_format& fmt,
                      const quantize_options& opt = {});
// The values the codes and scales stand for, in fp32 (row-major).
std::vector<float> dequantize(const block_tensor& t);
// The value of element i alone (what dequantize gives at i).
float dequantize_at(const block_tensor& t, int64_t i);

// The rounding a quantization with `opt` uses on `fmt` (the default resolved).
block_rounding resolved_rounding(const block_format& fmt, const quantize_options& opt);

}  // namespace sdc
