// Fast fp32 <-> bf16/fp16 conversions for the hot paths (GEMM output rounding,
// injection into bf16/fp16 values held in float). Same results, bit for bit, as
// the generic encoder in format.cpp, including the NaN policy: tested on all
// 2^32 inputs (tests/test_formats_exhaustive.cpp, label `slow`).
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__F16C__)
#include "foundation/simd/intrinsics.hpp"
#endif

namespace sdc {

inline float fp32_from_bf16(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

inline uint16_t bf16_from_fp32(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);  // NaN: quiet, keep top payload
  // Round to nearest even on the 16 dropped bits; a carry into the exponent is the
  // correct result, including overflow to infinity.
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return uint16_t((u + rounding) >> 16);
}

// Software fp32 -> fp16, round to nearest even (the reference-free path used
// where F16C is absent, and tested against F16C where present).
inline uint16_t fp16_from_fp32_soft(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return uint16_t(sign | 0x7c00u | 0x200u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (a < 0x38800000u) {                                   // below fp16 min normal 2^-14
    // Value = a_frac * 2^(e-150); fp16 subnormal quantum 2^-24.
    const int e = int(a >> 23);
    if (e < 102) return uint16_t(sign);  // < 2^-25: rounds to 0 (2^-25 itself ties to 0)
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const int shift = 126 - e;  // m * 2^(e-150) / 2^-24 = m >> (126 - e)
    const uint32_t kept = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    uint32_t n = kept + ((rem > half || (rem == half && (kept & 1))) ? 1u : 0u);
    return uint16_t(sign | n);
  }
  // Normal: rebias exponent (127 -> 15) and round 13 dropped bits.
  const uint32_t rebased = a - ((127u - 15u) << 23);
  const uint32_t rounding = 0xfffu + ((rebased >> 13) & 1u);
  return uint16_t(sign | ((rebased + rounding) >> 13));
}

inline float fp32_from_fp16_soft(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t frac = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (frac << 13) | (frac ? 0x400000u : 0u));
  if (exp == 0) {
    const float mag = float(frac) * 0x1p-24f;  // exact
    return sign ? -mag : mag;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (frac << 13));
}

inline uint16_t fp16_from_fp32(float x) {
#if defined(__F16C__)
  return uint16_t(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  return fp16_from_fp32_soft(x);
#endif
}

inline float fp32_from_fp16(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  return fp32_from_fp16_soft(h);
#endif
}

}  // namespace sdc
