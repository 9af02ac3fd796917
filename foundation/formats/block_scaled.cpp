#include "foundation/formats/block_scaled.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <string>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

// name, kind, bits, exp, mant, bias, specials, storage. Field widths and biases
// from microxcaling mx/formats.py::_get_format_params (ebits, mbits - 2,
// emax): FP6/FP4 spend the all-ones exponent on numbers ("no NaN/Inf").
constexpr format k_fp6_e3m2{"fp6_e3m2", format_kind::ieee_float, 6, 3, 2, 3, special_style::finite, storage_type::u8};
constexpr format k_fp6_e2m3{"fp6_e2m3", format_kind::ieee_float, 6, 2, 3, 1, special_style::finite, storage_type::u8};
constexpr format k_fp4_e2m1{"fp4_e2m1", format_kind::ieee_float, 4, 2, 1, 1, special_style::finite, storage_type::u8};
// The MX shared scale: 8 exponent bits, bias 127 (scale_bits = 8 in _quantize_mx).
constexpr format k_e8m0{"e8m0", format_kind::ieee_float, 8, 8, 0, 127, special_style::e8m0, storage_type::u8};

constexpr block_format k_block_formats[] = {
    {"mxfp8_e4m3", elem_type::fp8_e4m3, scale_type::e8m0, 32, false},
    {"mxfp8_e5m2", elem_type::fp8_e5m2, scale_type::e8m0, 32, false},
    {"mxfp6_e3m2", elem_type::fp6_e3m2, scale_type::e8m0, 32, false},
    {"mxfp6_e2m3", elem_type::fp6_e2m3, scale_type::e8m0, 32, false},
    {"mxfp4_e2m1", elem_type::fp4_e2m1, scale_type::e8m0, 32, false},
    {"mxint8", elem_type::int8, scale_type::e8m0, 32, false},
    // TransformerEngine nvfp4.rst: E2M1, an E4M3 scale per 16 consecutive elements, an FP32 tensor scale.
    {"nvfp4", elem_type::fp4_e2m1, scale_type::e4m3, 16, true},
};

// floor(log2 a) for finite a > 0, exact (fp32 subnormals included): what
// microxcaling's CUDA path reads from the exponent bits (mx/cpp/mx.cuh get_biased_exponent).
int floor_log2(float a) {
  int e;
  std::frexp(double(a), &e);  // a = m * 2^e, m in [0.5, 1)
  return e - 1;
}

// The E8M0 code of a block whose largest magnitude is amax (NaN if amax is).
uint8_t mx_scale_code(float amax, elem_type t, mx_scale_rule rule) {
  if (!std::isfinite(amax)) return 0xff;  // NaN or inf in the block: the block is NaN
  if (rule == mx_scale_rule::floor) {
    // mx/mx_ops.py::_shared_exponents: floor(log2(amax + 2^-126 [amax == 0]));
    // _quantize_mx: minus the element's emax, below -127 clamped to -127 (finite
    // fp32 amax cannot pass +127).
    int se = (amax == 0 ? -126 : floor_log2(amax)) - elem_emax(t);
    if (se < -127) se = -127;
    return uint8_t(se + 127);
  }
  // Variant rceil: TransformerEngine util/ptx_arch_spec.cuh::float_to_e8m0 on
  // amax * max_norm_rcp (cast/mxfp8/group_quantize_mxfp8.cuh): the fp32
  // value's biased exponent, one up when its mantissa is not zero, saturating at 0xFE
// (TE's ue8m0 conversion is cvt.rp.satfinite: round up, at most 2^127).
  // (cvt.rp: toward +inf; an fp32 subnormal v goes to 2^-127 or 2^-126.)
  const float v = amax * (1.0f / float(elem_max_norm(t)));
  const uint32_t u = std::bit_cast<uint32_t>(v);
  uint32_t exp = (u >> 23) & 0xff;
  if (exp == 0) return u > 0x400000u ? 1 : 0;  // 0x400000: 2^-127
  if ((u & 0x7fffff) != 0 && exp < 0xfe) ++exp;
  return uint8_t(exp);
}

// The element code of x in a block of scale 2^se (mx/mx_ops.py::_quantize_mx:
// A / 2^shared_exp, then mx/elemwise_ops.py::_quantize_elemwise_core with
// saturate_normals=True, allow_denorm=True).
uint8_t mx_element_code(float x, int se, elem_type t, tie_rule ties) {
  if (x == 0) return 0;  // torch.sign(+-0) = 0: an exact zero is +0
  const double v = std::ldexp(double(x), -se);  // exact
  if (t == elem_type::int8) {
    // exp_bits == 0: x * 2^(bits-2), rounded, clamped to +-max_norm = +-127/64.
    double k = ties == tie_rule::away ? std::round(v * 64) : std::nearbyint(v * 64);
    k = std::fmax(-127.0, std::fmin(127.0, k));
    return uint8_t(int8_t(k));
  }
  // Round on the element's grid, subnormals kept; past max_norm clamped.
  return uint8_t(encode_rounded(element_format(t), v, ties, /*saturate=*/true));
}

template <class F>
void for_each_in_block(const block_tensor& t, int64_t b, F&& f) {
  const int64_t n = t.fmt->block;
  if (t.axis == 1) {
    const int64_t r = b / t.scale_cols(), j = b % t.scale_cols();
    for (int64_t c = j * n; c < std::min(t.cols, (j + 1) * n); ++c) f(r * t.cols + c);
  } else {
    const int64_t j = b / t.cols, c = b % t.cols;
    for (int64_t r = j * n; r < std::min(t.rows, (j + 1) * n); ++r) f(r * t.cols + c);
  }
}

void quantize_mx(std::span<const float> x, block_tensor& t, tie_rule ties, mx_scale_rule rule) {
  const elem_type et = t.fmt->elem;
  for (int64_t b = 0; b < int64_t(t.scales.size()); ++b) {
    float amax = 0;
    bool nonfinite = false;
    for_each_in_block(t, b, [&](int64_t i) {
      const float a = std::fabs(x[size_t(i)]);
      nonfinite |= !std::isfinite(a);
      amax = a > amax ? a : amax;
    });
    const uint8_t sc = nonfinite ? 0xff : mx_scale_code(amax, et, rule);
    t.scales[size_t(b)] = sc;
    if (sc == 0xff) continue;  // a NaN block: its codes stay 0, the scale makes every element NaN
    for_each_in_block(t, b, [&](int64_t i) { t.codes[size_t(i)] = mx_element_code(x[size_t(i)], int(sc) - 127, et, ties); });
  }
}

// TransformerEngine's NVFP4 (transformer_engine/common/cast/nvfp4/core_nvfp4.cuh,
// quantize_transpose_nvfp4.cuh), every step in fp32 in the kernel's order.
void quantize_nvfp4(std::span<const float> x, block_tensor& t) {
  float amax = 0;
  for (float v : x) {
    if (!std::isfinite(v))
      throw value_error("nvfp4: expected finite values to quantize, got " + std::to_string(v) +
                        " (TransformerEngine's handling of NaN and inf in the tensor amax is not modelled)");
    amax = std::fabs(v) > amax ? std::fabs(v) : amax;
  }
  // compute_global_encode_scaling_factor_FP4: 448 * 6 / amax, at most FLT_MAX, 1 for a zero amax.
  float s_enc = std::fmin(448.0f * 6.0f / amax, FLT_MAX);
  if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  const float s_dec = 1.0f / s_enc;
  t.tensor_scale = s_dec;
  const float enc_over_fp4max = s_enc * (1.0f / 6.0f);
  const format& e4m3 = element_format(elem_type::fp8_e4m3);
  const format& e2m1 = element_format(elem_type::fp4_e2m1);
  for (int64_t b = 0; b < int64_t(t.scales.size()); ++b) {
    float bmax = 0;
    for_each_in_block(t, b, [&](int64_t i) { bmax = std::fmax(bmax, std::fabs(x[size_t(i)])); });
    // compute_decoding_scaling_factor: block_amax * (S_enc / 6) to E4M3, RNE, saturating at 448.
    const uint8_t sc = uint8_t(encode(e4m3, double(std::fmin(bmax * enc_over_fp4max, 448.0f))));
    t.scales[size_t(b)] = sc;
    // block_scale_inverse = fminf(1 / (S_dec_b * S_dec), FLT_MAX), the quantized scale's.
    const float inv = std::fmin(1.0f / (float(decode(e4m3, sc)) * s_dec), FLT_MAX);
    for_each_in_block(t, b, [&](int64_t i) {
      const float y = x[size_t(i)] * inv;
      // cvt.rn.satfinite.e2m1x2.f32: RNE, saturate to +-6; a zero product (-0
      // too) is code 0, as the reference's cast_to_fp4x2 thresholds map it.
      t.codes[size_t(i)] = y == 0 ? 0 : uint8_t(encode_rounded(e2m1, double(y), tie_rule::even, true));
    });
  }
}

}  // namespace

std::span<const block_format> all_block_formats() { return k_block_formats; }

const block_format& block_format_by_name(std::string_view name) {
  for (const auto& f : k_block_formats)
    if (f.name == name) return f;
  std::string known;
  for (const auto& f : k_block_formats) known += (known.empty() ? "" : ", ") + std::string(f.name);
  throw value_error("unknown block-scaled format '" + std::string(name) + "' (known: " + known + ")");
}

const format& element_format(elem_type t) {
  switch (t) {
    case elem_type::fp8_e4m3: return format_by_name("fp8_e4m3");
    case elem_type::fp8_e5m2: return format_by_name("fp8_e5m2");
    case elem_type::fp6_e3m2: return k_fp6_e3m2;
    case elem_type::fp6_e2m3: return k_fp6_e2m3;
    case elem_type::fp4_e2m1: return k_fp4_e2m1;
    case elem_type::int8: return s8();
  }
  return s8();
}

const format& e8m0() { return k_e8m0; }
const format& scale_format(scale_type t) { return t == scale_type::e8m0 ? k_e8m0 : format_by_name("fp8_e4m3"); }

std::string_view elem_type_name(elem_type t) { return t == elem_type::int8 ? "int8" : element_format(t).name; }

double elem_max_norm(elem_type t) {
  return t == elem_type::int8 ? 127.0 / 64 : element_format(t).max_finite();
}

int elem_emax(elem_type t) {
  if (t == elem_type::int8) return 0;
  const format& f = element_format(t);
  return floor_log2(float(f.max_finite()));
}

double decode_element(elem_type t, uint8_t code) {
  if (t == elem_type::int8) return std::ldexp(double(int8_t(code)), -6);
  return decode(element_format(t), code);
}

double decode_scale(scale_type t, uint8_t code) { return decode(scale_format(t), code); }

int64_t block_tensor::blocks_along() const {
  const int64_t n = axis == 1 ? cols : rows;
  return (n + fmt->block - 1) / fmt->block;
}

int64_t block_tensor::block_of(int64_t i) const {
  const int64_t r = i / cols, c = i % cols;
  return axis == 1 ? r * blocks_along() + c / fmt->block : (r / fmt->block) * cols + c;
}

std::vector<int64_t> block_tensor::elements_of_block(int64_t b) const {
  std::vector<int64_t> out;
  for_each_in_block(*this, b, [&](int64_t i) { out.push_back(i); });
  return out;
}

block_rounding resolved_rounding(const block_format& fmt, const quantize_options& opt) {
  if (fmt.scale == scale_type::e4m3) {
    if (opt.rounding == block_rounding::ties_away)
      throw value_error("nvfp4 rounds to nearest even (TransformerEngine); expected rounding 'even' or the default");
    return block_rounding::even;
  }
  return opt.rounding.value_or(block_rounding::ties_away);
}

block_tensor quantize(std::span<const float> x, int64_t rows, int64_t cols, int axis, const block_format& fmt,
                      const quantize_options& opt) {
  if (rows < 0 || cols < 0 || int64_t(x.size()) != rows * cols)
    throw value_error(std::string(fmt.name) + ": expected rows * cols = " + std::to_string(rows) + " * " +
                      std::to_string(cols) + " values, got " + std::to_string(x.size()));
  if (axis != 0 && axis != 1 && axis != -1 && axis != -2)
    throw value_error(std::string(fmt.name) + ": expected the blocked axis 1 or -1 (along rows) or 0 or -2 (down columns), got " +
                      std::to_string(axis));
  const block_rounding rounding = resolved_rounding(fmt, opt);
  if (fmt.scale == scale_type::e4m3 && opt.scale_rule != mx_scale_rule::floor)
    throw value_error("nvfp4: the scale rule 'rceil' is an MX (E8M0) variant; NVFP4's scale is E4M3");
  block_tensor t{.fmt = &fmt, .rows = rows, .cols = cols, .axis = (axis == 1 || axis == -1) ? 1 : 0};
  t.codes.assign(size_t(rows * cols), 0);
  t.scales.assign(size_t(t.scale_rows() * t.scale_cols()), 0);
  if (fmt.scale == scale_type::e4m3) {
    quantize_nvfp4(x, t);
  } else {
    quantize_mx(x, t, rounding == block_rounding::even ? tie_rule::even : tie_rule::away, opt.scale_rule);
  }
  return t;
}

float dequantize_at(const block_tensor& t, int64_t i) {
  const double e = decode_element(t.fmt->elem, t.codes[size_t(i)]);
  const double s = decode_scale(t.fmt->scale, t.scales[size_t(t.block_of(i))]);
  // MX: element * 2^shared_exp (exact but past fp32's range). NVFP4: code times
  // block scale exactly, then the tensor scale, in fp32 (TE's reference GEMM
  // applies the global factor last).
  if (!t.fmt->tensor_scale) return float(e * s);
  return float(e * s) * t.tensor_scale;
}

std::vector<float> dequantize(const block_tensor& t) {
  std::vector<float> out(t.codes.size());
  for (int64_t i = 0; i < int64_t(out.size()); ++i) out[size_t(i)] = dequantize_at(t, i);
  return out;
}

}  // namespace sdc
