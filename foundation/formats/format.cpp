#include "foundation/formats/format.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

using fk = format_kind;
using ss = special_style;
using st = storage_type;

// name, kind, bits, exp, mant, bias, specials, storage
constexpr format k_formats[] = {
    {"fp64", fk::ieee_float, 64, 11, 52, 1023, ss::ieee, st::f64},
    {"fp32", fk::ieee_float, 32, 8, 23, 127, ss::ieee, st::f32},
    {"bf16", fk::ieee_float, 16, 8, 7, 127, ss::ieee, st::f32},
    {"fp16", fk::ieee_float, 16, 5, 10, 15, ss::ieee, st::f32},
    {"fp8_e4m3", fk::ieee_float, 8, 4, 3, 7, ss::fn, st::f32},
    {"fp8_e5m2", fk::ieee_float, 8, 5, 2, 15, ss::ieee, st::f32},
    {"s8", fk::signed_int, 8, 0, 7, 0, ss::ieee, st::s8},
    {"u8", fk::unsigned_int, 8, 0, 8, 0, ss::ieee, st::u8},
    {"s32", fk::signed_int, 32, 0, 31, 0, ss::ieee, st::s32},
};

uint64_t double_bits(double v) { return std::bit_cast<uint64_t>(v); }

int max_biased_exp(const format& f) { return (1 << f.exp_bits) - 1; }

// E8M0 (the MX shared scale): no sign, zero or mantissa. Positive values go to
// the nearest power of two (a tie, 1.5 * 2^e, up); below 2^-127 to 2^-127;
// past 2^127 NaN, as microxcaling's overflowing shared exponent
// (mx/mx_ops.py::_quantize_mx), or 2^127 when saturating. NaN, inf, zero and
// negative values have no code but NaN.
uint64_t encode_e8m0(double v, bool saturate) {
  if (!(v > 0) || std::isinf(v)) return 0xff;
  int e;
  const double m = 2 * std::frexp(v, &e);  // v = m * 2^(e - 1), m in [1, 2)
  int ex = e - 1 + (m >= 1.5 ? 1 : 0);
  if (ex < -127) ex = -127;
  if (ex > 127) return saturate ? 0xfe : 0xff;
  return uint64_t(ex + 127);
}

uint64_t encode_float(const format& f, double v, tie_rule ties, bool saturate) {
  if (f.specials == ss::e8m0) return encode_e8m0(v, saturate);
  const uint64_t db = double_bits(v);
  const uint64_t sign = (db >> 63) << f.sign_bit();
  const uint64_t all_ones_exp = uint64_t(max_biased_exp(f)) << f.mant_bits;
  const uint64_t frac_mask = (1ull << f.mant_bits) - 1;
  const uint64_t max_code = f.specials == ss::ieee ? (all_ones_exp - (1ull << f.mant_bits)) | frac_mask
                            : f.specials == ss::fn  ? all_ones_exp | (frac_mask - 1)
                                                    : all_ones_exp | frac_mask;
  if (f.specials == ss::finite && std::isnan(v)) return max_code;  // satfinite: NaN -> +max
  if (f.specials == ss::finite && std::isinf(v)) return sign | max_code;
  if (std::isnan(v)) {
    if (f.specials == ss::fn) return sign | all_ones_exp | frac_mask;
    // Keep the top payload bits, set the quiet bit (as IEEE 754 and x86 F16C do).
    const uint64_t payload = (db & ((1ull << 52) - 1)) >> (52 - f.mant_bits);
    return sign | all_ones_exp | payload | f.quiet_bit();
  }
  if (std::isinf(v)) {
    return f.specials == ss::fn ? (sign | all_ones_exp | frac_mask) : (sign | all_ones_exp);
  }
  if (v == 0) return sign;
  // |v| = sig * 2^e2 exactly, sig < 2^53.
  const int dexp = int((db >> 52) & 0x7ff);
  uint64_t sig = db & ((1ull << 52) - 1);
  int e2;
  if (dexp == 0) {
    e2 = -1074;
  } else {
    sig |= 1ull << 52;
    e2 = dexp - 1075;
  }
  const int top = e2 + (63 - std::countl_zero(sig));  // floor(log2|v|)
  const int emin = 1 - f.bias;
  const int q = (top > emin ? top : emin) - f.mant_bits;  // exponent of the quantum
  uint64_t n;
  if (e2 >= q) {
    n = sig << (e2 - q);  // exact: fits in mant_bits + 1 bits
  } else {
    const int s = q - e2;
    if (s > 64) {
      n = 0;  // below half the smallest quantum
    } else {
      const uint64_t kept = s == 64 ? 0 : (sig >> s);
      const uint64_t rem = s == 64 ? sig : (sig & ((1ull << s) - 1));
      const uint64_t half = 1ull << (s - 1);
      n = kept;
      if (rem > half || (rem == half && (ties == tie_rule::away || (kept & 1)))) ++n;
    }
  }
  int qq = q;
  if (n == (2ull << f.mant_bits)) {  // rounding carried into a new binade
    n >>= 1;
    ++qq;
  }
  if (n < (1ull << f.mant_bits)) return sign | n;  // subnormal (or zero)
  const int64_t biased = int64_t(qq) + f.mant_bits + f.bias;
  const uint64_t frac = n - (1ull << f.mant_bits);
  const bool overflow = f.specials == ss::ieee ? biased >= max_biased_exp(f)
                        : f.specials == ss::fn
                            ? (biased > max_biased_exp(f) || (biased == max_biased_exp(f) && frac == frac_mask))
                            : biased > max_biased_exp(f);
  if (overflow) {
    if (saturate || f.specials == ss::finite) return sign | max_code;
    return f.specials == ss::fn ? (sign | all_ones_exp | frac_mask) : (sign | all_ones_exp);
  }
  return sign | (uint64_t(biased) << f.mant_bits) | frac;
}

double decode_float(const format& f, uint64_t bits) {
  if (f.specials == ss::e8m0) {
    return bits == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(bits) - 127);
  }
  const bool neg = (bits >> f.sign_bit()) & 1;
  const int biased = int((bits >> f.mant_bits) & uint64_t(max_biased_exp(f)));
  const uint64_t frac = bits & ((1ull << f.mant_bits) - 1);
  double mag;
  if (is_nan_bits(f, bits)) {
    // Payload moved to the top of double's fraction; sign kept.
    const uint64_t db = (uint64_t(neg) << 63) | (0x7ffull << 52) | (frac << (52 - f.mant_bits)) |
                        (f.specials == ss::fn ? (1ull << 51) : 0);
    return std::bit_cast<double>(db);
  }
  if (is_inf_bits(f, bits)) {
    mag = std::numeric_limits<double>::infinity();
  } else if (biased == 0) {
    mag = std::ldexp(double(frac), 1 - f.bias - f.mant_bits);
  } else {
    mag = std::ldexp(double(frac | (1ull << f.mant_bits)), biased - f.bias - f.mant_bits);
  }
  return neg ? -mag : mag;
}

double int_min(const format& f) {
  return f.kind == fk::unsigned_int ? 0.0 : -std::ldexp(1.0, f.bits - 1);
}
double int_max(const format& f) {
  return f.kind == fk::unsigned_int ? std::ldexp(1.0, f.bits) - 1 : std::ldexp(1.0, f.bits - 1) - 1;
}

}  // namespace

double format::unit_roundoff() const {
  return is_float() ? std::ldexp(1.0, -(mant_bits + 1)) : 0.0;
}
double format::max_finite() const {
  if (!is_float()) return int_max(*this);
  if (specials == ss::e8m0) return std::ldexp(1.0, 127);
  const int top_biased = specials == ss::ieee ? (1 << exp_bits) - 2 : (1 << exp_bits) - 1;
  const uint64_t frac = specials == ss::fn ? (1ull << mant_bits) - 2 : (1ull << mant_bits) - 1;
  return decode(*this, (uint64_t(top_biased) << mant_bits) | frac);
}
double format::min_normal() const { return std::ldexp(1.0, specials == ss::e8m0 ? -bias : 1 - bias); }
double format::min_subnormal() const {
  return specials == ss::e8m0 ? min_normal() : std::ldexp(1.0, 1 - bias - mant_bits);
}

std::span<const format> all_formats() { return k_formats; }

const format& format_by_name(std::string_view name) {
  if (name == "int8") name = "s8";
  if (name == "int32") name = "s32";
  for (const auto& f : k_formats)
    if (f.name == name) return f;
  std::string known;
  for (const auto& f : k_formats) known += (known.empty() ? "" : ", ") + std::string(f.name);
  throw value_error("unknown format '" + std::string(name) + "' (known: " + known + ", int8, int32)");
}
const format& fp64() { return k_formats[0]; }
const format& fp32() { return k_formats[1]; }
const format& bf16() { return k_formats[2]; }
const format& fp16() { return k_formats[3]; }
const format& s8() { return format_by_name("s8"); }
const format& u8() { return format_by_name("u8"); }
const format& s32() { return format_by_name("s32"); }

bool is_nan_bits(const format& f, uint64_t bits) {
  if (!f.is_float() || f.specials == ss::finite) return false;
  if (f.specials == ss::e8m0) return (bits & 0xff) == 0xff;
  const uint64_t exp = (bits >> f.mant_bits) & uint64_t(max_biased_exp(f));
  const uint64_t frac = bits & ((1ull << f.mant_bits) - 1);
  if (exp != uint64_t(max_biased_exp(f))) return false;
  return f.specials == ss::ieee ? frac != 0 : frac == (1ull << f.mant_bits) - 1;
}

bool is_inf_bits(const format& f, uint64_t bits) {
  if (!f.is_float() || f.specials != ss::ieee) return false;
  const uint64_t exp = (bits >> f.mant_bits) & uint64_t(max_biased_exp(f));
  const uint64_t frac = bits & ((1ull << f.mant_bits) - 1);
  return exp == uint64_t(max_biased_exp(f)) && frac == 0;
}

uint64_t encode(const format& f, double v) { return encode_rounded(f, v, tie_rule::even, false); }

uint64_t encode_rounded(const format& f, double v, tie_rule ties, bool saturate) {
  if (f.kind == fk::ieee_float) {
    if (f.bits == 64) return double_bits(v);
    return encode_float(f, v, ties, saturate);
  }
  if (std::isnan(v)) return 0;
  // nearbyint: the default rounding mode, nearest with ties to even.
  double r = ties == tie_rule::away ? std::round(v) : std::nearbyint(v);
  if (r < int_min(f)) r = int_min(f);
  if (r > int_max(f)) r = int_max(f);
  return uint64_t(int64_t(r)) & f.mask();
}

double decode(const format& f, uint64_t bits) {
  bits &= f.mask();
  switch (f.kind) {
    case fk::ieee_float:
      if (f.bits == 64) return std::bit_cast<double>(bits);
      return decode_float(f, bits);
    case fk::unsigned_int:
      return double(bits);
    case fk::signed_int: {
      const uint64_t sign = 1ull << (f.bits - 1);
      return double(int64_t(bits ^ sign) - int64_t(sign));
    }
  }
  return 0;
}

double ulp_of(const format& f, double exact) {
  if (!f.is_float()) return 1.0;
  const double a = std::fabs(exact);
  if (!(a >= f.min_normal())) return f.min_subnormal();
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - 1 - f.mant_bits);
}

}  // namespace sdc
