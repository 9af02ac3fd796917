// A typed view of one tensor of a workload: where injectors read and write the
// bits of one element. bf16/fp16/fp8 values are held exactly in float, so the
// bits of an element are those of its value encoded in its format.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>

#include "foundation/formats/format.hpp"
#include "foundation/formats/narrow_fp32.hpp"

namespace sdc {

// NaN encodings of a narrow float held in fp32, moved bit-exactly: sign, payload
// and quiet bit as the fault left them (a signalling NaN stays signalling until
// arithmetic touches it). Conversions of values follow the NaN policy instead.
inline uint32_t fp32_bits_holding_nan(const format& f, uint64_t b) {
  const uint64_t frac = b & ((1ull << f.mant_bits) - 1);
  return uint32_t(((b >> f.sign_bit()) & 1) << 31) | 0x7f800000u | uint32_t(frac << (23 - f.mant_bits));
}
inline uint64_t nan_bits_held_in_fp32(const format& f, uint32_t u) {
  const uint64_t all_ones_exp = ((1ull << f.exp_bits) - 1) << f.mant_bits;
  return (uint64_t(u >> 31) << f.sign_bit()) | all_ones_exp | ((u & 0x7fffffu) >> (23 - f.mant_bits));
}

// x rounded (RNE) to f and held in T (float for fp32/bf16/fp16/fp8, double for
// fp64): the same value as round_to(f, x), without the generic decode.
template <class T>
inline T round_into(const format& f, double x) {
  if (f.bits == 64) return T(x);
  if (f.bits == 32 && f.is_float()) return T(float(x));  // C++ double->float conversion is RNE
  if (&f == &bf16()) return T(fp32_from_bf16(uint16_t(encode(f, x))));
  if (&f == &fp16()) return T(fp32_from_fp16(uint16_t(encode(f, x))));
  return T(round_to(f, x));
}

struct tensor_view {
  const format* fmt = nullptr;
  void* data = nullptr;
  int64_t rows = 0, cols = 0;  // a vector is rows = 1
  int64_t ld = 0;              // elements between rows; 0 = cols (contiguous)

  int64_t size() const { return rows * cols; }
  // Storage offset of row-major element i of the rows x cols tensor.
  int64_t offset(int64_t i) const { return ld == 0 || ld == cols ? i : (i / cols) * ld + i % cols; }

  uint64_t bits_at(int64_t e) const {
    const int64_t i = offset(e);
    switch (fmt->storage) {
      case storage_type::f64: return std::bit_cast<uint64_t>(static_cast<const double*>(data)[i]);
      case storage_type::f32: {
        const float v = static_cast<const float*>(data)[i];
        const uint32_t u = std::bit_cast<uint32_t>(v);
        if (fmt->bits == 32) return u;
        if ((u & 0x7fffffffu) > 0x7f800000u) return nan_bits_held_in_fp32(*fmt, u);
        if (fmt == &bf16()) return bf16_from_fp32(v);
        if (fmt == &fp16()) return fp16_from_fp32(v);
        return encode(*fmt, double(v));
      }
      case storage_type::s8: return uint8_t(static_cast<const int8_t*>(data)[i]);
      case storage_type::u8: return static_cast<const uint8_t*>(data)[i];
      case storage_type::s32: return uint32_t(static_cast<const int32_t*>(data)[i]);
    }
    return 0;
  }

  void set_bits(int64_t e, uint64_t b) const {
    const int64_t i = offset(e);
    b &= fmt->mask();
    switch (fmt->storage) {
      case storage_type::f64: static_cast<double*>(data)[i] = std::bit_cast<double>(b); return;
      case storage_type::f32: {
        float v;
        if (fmt->bits == 32) v = std::bit_cast<float>(uint32_t(b));
        else if (is_nan_bits(*fmt, b)) v = std::bit_cast<float>(fp32_bits_holding_nan(*fmt, b));
        else if (fmt == &bf16()) v = fp32_from_bf16(uint16_t(b));
        else if (fmt == &fp16()) v = fp32_from_fp16(uint16_t(b));
        else v = float(decode(*fmt, b));
        static_cast<float*>(data)[i] = v;
        return;
      }
      case storage_type::s8: static_cast<int8_t*>(data)[i] = int8_t(uint8_t(b)); return;
      case storage_type::u8: static_cast<uint8_t*>(data)[i] = uint8_t(b); return;
      case storage_type::s32: static_cast<int32_t*>(data)[i] = int32_t(uint32_t(b)); return;
    }
  }

  double value_at(int64_t i) const { return decode(*fmt, bits_at(i)); }
};

}  // namespace sdc
