// Numeric formats: one IEEE-style descriptor for every floating-point format
// (fp64, fp32, bf16, fp16, fp8 E4M3/E5M2) and the integer formats (s8, u8, s32).
// Conversions from double round to nearest, ties to even, with subnormals,
// infinities and NaN handled as documented in METHODOLOGY.md ("NaN policy").
// The block-scaled formats' element and scale types (FP6, FP4, E8M0) are
// descriptors of this kind too, outside all_formats(): block_scaled.hpp.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace sdc {

enum class format_kind { ieee_float, signed_int, unsigned_int };

// How a float format spends its all-ones exponent.
//  ieee: all-ones exponent is inf (fraction 0) or NaN (fraction != 0).
//  fn:   no infinities; only all-ones exponent with all-ones fraction is NaN
//        (OCP FP8 E4M3, "finite + NaN").
//  finite: every code is a number, no inf or NaN (OCP FP6 E3M2/E2M3, FP4 E2M1);
//        conversions saturate and NaN becomes +max, as TransformerEngine's
//        cvt.rn.satfinite does (util/ptx.cuh, comment on satfinite).
//  e8m0: no sign, no mantissa, no zero: 2^(code - 127), code 0xFF is NaN (the
//        OCP MX shared scale).
enum class special_style { ieee, fn, finite, e8m0 };

// How a conversion breaks a tie: to even (IEEE), or away from zero
// (microxcaling's "nearest", mx/elemwise_ops.py::_round_mantissa).
enum class tie_rule { even, away };

// What a value is held in while a workload computes with it. bf16/fp16/fp8
// values are held exactly in float; fp64 in double; integers in their own type.
enum class storage_type { f64, f32, s8, u8, s32 };

struct format {
  std::string_view name;
  format_kind kind;
  int bits;       // storage width
  int exp_bits;   // 0 for integers
  int mant_bits;  // explicit fraction bits (integers: value bits excluding sign)
  int bias;
  special_style specials;
  storage_type storage;

  bool is_float() const { return kind == format_kind::ieee_float; }
  uint64_t mask() const { return bits == 64 ? ~0ull : ((1ull << bits) - 1); }
  int sign_bit() const { return bits - 1; }  // floats and signed ints
  bool has_sign() const { return kind != format_kind::unsigned_int && specials != special_style::e8m0; }
  // Unit roundoff u = 2^-(p) with p = mant_bits + 1 significand bits: 2^-(mant_bits+1).
  double unit_roundoff() const;
  double max_finite() const;
  double min_normal() const;
  double min_subnormal() const;
  uint64_t quiet_bit() const { return 1ull << (mant_bits - 1); }
};

// Every format the project knows, in a fixed order.
std::span<const format> all_formats();
// Looks a format up by name ("bf16", "fp32", "int8" is s8, ...); throws value_error.
const format& format_by_name(std::string_view name);
const format& fp64();
const format& fp32();
const format& bf16();
const format& fp16();
const format& s8();
const format& u8();
const format& s32();

// Bits of the value nearest to v in `f` (RNE). Floats: overflow gives inf
// (ieee style) or NaN (fn style); NaN keeps sign and the top payload bits and is
// quieted. Integers: round to nearest even, saturate to the range; NaN gives 0.
uint64_t encode(const format& f, double v);
// Floats: `encode` with the tie rule given and, when `saturate`, finite
// magnitudes past the largest finite value giving +-max_finite (NaN and inf
// as `encode`). Integers: round with the tie rule, saturate.
uint64_t encode_rounded(const format& f, double v, tie_rule ties, bool saturate);
// Exact value of an encoding (every format here is exactly representable in double).
double decode(const format& f, uint64_t bits);
// Convenience: the value of v after rounding to f.
inline double round_to(const format& f, double v) { return decode(f, encode(f, v)); }

bool is_nan_bits(const format& f, uint64_t bits);
bool is_inf_bits(const format& f, uint64_t bits);
// Distance in units in the last place of f at the magnitude of `exact`: |x - exact| / ulp(exact).
double ulp_of(const format& f, double exact);

}  // namespace sdc
