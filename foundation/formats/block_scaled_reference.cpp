#include "foundation/formats/block_scaled_reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// microxcaling mx/formats.py::_get_format_params: ebits, mbits (sign and
// implicit bit included), emax, max_norm. int8: ebits 0, mbits 8, emax 0.
struct mx_params {
  int ebits, mbits, emax;
  double max_norm;
};
mx_params params_of(elem_type t) {
  switch (t) {
    case elem_type::fp8_e4m3: return {4, 5, 8, 256 * 1.75};  // "FP8 has custom max_norm"
    case elem_type::fp8_e5m2: return {5, 4, 15, 32768 * 1.75};
    case elem_type::fp6_e3m2: return {3, 4, 4, 16 * 1.75};
    case elem_type::fp6_e2m3: return {2, 5, 2, 4 * 1.875};
    case elem_type::fp4_e2m1: return {2, 3, 2, 4 * 1.5};
    case elem_type::int8: return {0, 8, 0, 127.0 / 64};
  }
  return {};
}
int code_count(elem_type t) { return t == elem_type::fp4_e2m1 ? 16 : (t == elem_type::fp6_e3m2 || t == elem_type::fp6_e2m3) ? 64 : 256; }

double torch_sign(double v) { return double((v > 0) - (v < 0)); }

// _quantize_elemwise_core on one value already divided by 2^shared_exp, with
// saturate_normals=True, allow_denorm=True.
double quantize_elem_value(double a, elem_type t, block_rounding r) {
  const mx_params p = params_of(t);
  double pexp = 0;
  double out = a;
  if (p.ebits != 0) {
    pexp = std::floor(std::log2(std::fabs(a) + (a == 0 ? 1.0 : 0.0)));
    pexp = std::fmax(pexp, double(-(1 << (p.ebits - 1)) + 2));  // min_exp
    out = a / std::exp2(pexp) * std::exp2(p.mbits - 2);         // _safe_lshift
  } else {
    out = a * std::exp2(p.mbits - 2);
  }
  const double absa = std::fabs(out);
  if (r == block_rounding::ties_away) {
    out = torch_sign(out) * std::floor(absa + 0.5);  // "nearest"
  } else {
    const double mask = std::fmod(absa - 0.5, 2.0) == 0 ? 1.0 : 0.0;  // "even": 0.5, 2.5, 4.5, ...
    out = torch_sign(out) * (std::floor(absa + 0.5) - mask);
  }
  out = out / std::exp2(p.mbits - 2) * std::exp2(pexp);  // _safe_rshift
  if (out > p.max_norm) out = p.max_norm;
  if (out < -p.max_norm) out = -p.max_norm;
  return out;
}

// The code whose value is v (and, for floats, whose sign is v's).
uint8_t code_of_value(elem_type t, double v) {
  for (int c = 0; c < code_count(t); ++c) {
    const double d = decode_element_reference(t, uint8_t(c));
    if (d == v && (t == elem_type::int8 || std::signbit(d) == std::signbit(v))) return uint8_t(c);
  }
  throw value_error("quantize_reference: no code of value " + std::to_string(v));
}

// One block of MX along a row: scale code, then codes.
void mx_block(const float* x, int64_t n, elem_type t, const quantize_options& opt, block_rounding r, uint8_t* codes,
              uint8_t* scale) {
  double amax = 0;
  for (int64_t i = 0; i < n; ++i) amax = std::isnan(x[i]) || std::isnan(amax) ? k_nan : std::fmax(amax, std::fabs(x[i]));
  double se;
  if (opt.scale_rule == mx_scale_rule::rceil) {
    // TE's reference cast_to_e8: ceil(log2(amax / max_norm)), clamped to +-127 (amax / max_norm as TE's fp32 product).
    const float v = float(amax) * (1.0f / float(params_of(t).max_norm));
    se = std::isfinite(amax) ? std::fmax(-127.0, std::fmin(127.0, std::ceil(std::log2(double(v))))) : k_nan;
  } else {
    se = std::floor(std::log2(amax + (amax == 0 ? std::ldexp(1.0, -126) : 0.0))) - params_of(t).emax;
    if (se > 127) se = k_nan;
    if (se < -127) se = -127;
  }
  if (std::isnan(se)) {
    *scale = 0xff;
    for (int64_t i = 0; i < n; ++i) codes[i] = 0;
    return;
  }
  *scale = uint8_t(int(se) + 127);
  for (int64_t i = 0; i < n; ++i) codes[i] = code_of_value(t, quantize_elem_value(double(x[i]) / std::exp2(se), t, r));
}

uint8_t e4m3_nearest_even(float v) {  // v in [0, 448]: the nearest E4M3 code, ties to the even code
  int best = 0;
  for (int c = 1; c < 0x7f; ++c) {
    const double dc = std::fabs(decode_element_reference(elem_type::fp8_e4m3, uint8_t(c)) - v);
    const double db = std::fabs(decode_element_reference(elem_type::fp8_e4m3, uint8_t(best)) - v);
    if (dc < db || (dc == db && (c & 1) == 0)) best = c;
  }
  return uint8_t(best);
}

uint8_t cast_to_fp4(float x) {  // TE's cast_to_fp4x2 thresholds, one value
  const float a = std::fabs(x);
  const uint8_t mag = a <= 0.25f ? 0 : a < 0.75f ? 1 : a <= 1.25f ? 2 : a < 1.75f ? 3 : a <= 2.5f ? 4 : a < 3.5f ? 5 : a <= 5.0f ? 6 : 7;
  return uint8_t(mag | (x < 0 ? 8 : 0));
}

}  // namespace

double decode_element_reference(elem_type t, uint8_t code) {
  if (t == elem_type::int8) return double(int8_t(code)) / 64;
  const mx_params p = params_of(t);
  const int m = p.mbits - 2, e = p.ebits, bits = 1 + e + m, bias = (1 << (e - 1)) - 1;
  const int s = (code >> (bits - 1)) & 1, ex = (code >> m) & ((1 << e) - 1), man = code & ((1 << m) - 1);
  if (t == elem_type::fp8_e4m3 && ex == 15 && man == 7) return k_nan;
  if (t == elem_type::fp8_e5m2 && ex == 31) return man ? k_nan : (s ? -INFINITY : INFINITY);
  const double mag = ex == 0 ? std::ldexp(double(man), 1 - bias - m) : std::ldexp(double(man + (1 << m)), ex - bias - m);
  return s ? -mag : mag;
}

double decode_scale_reference(scale_type t, uint8_t code) {
  if (t == scale_type::e4m3) return decode_element_reference(elem_type::fp8_e4m3, code);
  return code == 0xff ? k_nan : std::exp2(double(code) - 127);
}

block_tensor quantize_reference(std::span<const float> x, int64_t rows, int64_t cols, int axis, const block_format& fmt,
                                const quantize_options& opt) {
  const bool down = axis == 0 || axis == -2;
  // Work along rows of xt (x, or its transpose when blocking down the columns).
  const int64_t R = down ? cols : rows, C = down ? rows : cols, n = fmt.block, nb = (C + n - 1) / n;
  std::vector<float> xt(x.begin(), x.end());
  if (down)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) xt[size_t(c * rows + r)] = x[size_t(r * cols + c)];
  std::vector<uint8_t> codes(size_t(R * C)), scales(size_t(R * nb));
  const block_rounding r = resolved_rounding(fmt, opt);
  float s_dec = 1;
  if (fmt.scale == scale_type::e8m0) {
    for (int64_t i = 0; i < R; ++i)
      for (int64_t b = 0; b < nb; ++b)
        mx_block(&xt[size_t(i * C + b * n)], std::min(n, C - b * n), fmt.elem, opt, r, &codes[size_t(i * C + b * n)],
                 &scales[size_t(i * nb + b)]);
  } else {
    float amax = 0;
    for (float v : xt) amax = std::fmax(amax, std::fabs(v));
    float s_enc = std::fmin(float(448.0f * 6.0f) / amax, FLT_MAX);
    if (amax == 0 || s_enc == 0) s_enc = 1;  // the kernel's compute_global_encode_scaling_factor_FP4
    s_dec = 1.0f / s_enc;
    for (int64_t i = 0; i < R; ++i)
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t lo = i * C + b * n, hi = i * C + std::min(C, (b + 1) * n);
        float vec_max = 0;
        for (int64_t k = lo; k < hi; ++k) vec_max = std::fmax(vec_max, std::fabs(xt[size_t(k)]));
        const float decode_scale = std::fmin(std::fmin(vec_max * (s_enc * (1.0f / 6.0f)), FLT_MAX), 448.0f);
        const uint8_t sc = e4m3_nearest_even(decode_scale);
        scales[size_t(i * nb + b)] = sc;
        const float encode_scale = std::fmin(1.0f / (float(decode_scale_reference(scale_type::e4m3, sc)) * s_dec), FLT_MAX);
        for (int64_t k = lo; k < hi; ++k)
          codes[size_t(k)] = cast_to_fp4(std::fmax(-6.0f, std::fmin(6.0f, xt[size_t(k)] * encode_scale)));
      }
  }
  block_tensor t{.fmt = &fmt, .rows = rows, .cols = cols, .axis = down ? 0 : 1, .codes = codes, .scales = scales,
                 .tensor_scale = s_dec};
  if (down) {  // back to row-major rows x cols; scales nb x cols
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) t.codes[size_t(j * cols + i)] = codes[size_t(i * C + j)];
    for (int64_t i = 0; i < R; ++i)
      for (int64_t b = 0; b < nb; ++b) t.scales[size_t(b * cols + i)] = scales[size_t(i * nb + b)];
  }
  return t;
}

std::vector<float> dequantize_reference(const block_tensor& t) {
  std::vector<float> out(t.codes.size());
  const int64_t n = t.fmt->block;
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) {
      const int64_t s = t.axis == 1 ? r * ((t.cols + n - 1) / n) + c / n : (r / n) * t.cols + c;
      const double e = decode_element_reference(t.fmt->elem, t.codes[size_t(r * t.cols + c)]);
      const double sc = decode_scale_reference(t.fmt->scale, t.scales[size_t(s)]);
      // MX: A * 2^shared_exp; NVFP4: (code x block scale) then x the global decode scale.
      out[size_t(r * t.cols + c)] = t.fmt->tensor_scale ? float(e * sc) * t.tensor_scale : float(e * sc);
    }
  return out;
}

}  // namespace sdc
