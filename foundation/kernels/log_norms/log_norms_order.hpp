// The log-norms' fixed order of operations (log_norms.hpp): 32 lanes, lane
// e mod 32 takes element e by FMA in fp64, and the lanes fold as below. Shared
// by the reference twin (log_norms.cpp) and every level's kernel
// (log_norms_body.hpp); internal linkage (the anonymous namespace), so each
// level's translation unit keeps its own copy compiled with its own flags.
#pragma once
#include <cstdint>

namespace sdc {
namespace {

inline double reduce8(const double l[8]) { return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7])); }
inline double reduce32(const double l[32]) {
  double a[8];
  for (int k = 0; k < 8; ++k) a[k] = (l[k] + l[8 + k]) + (l[16 + k] + l[24 + k]);
  return reduce8(a);
}
inline double widen(float x) { return double(x); }
inline double widen(uint16_t b) { return double(__builtin_bit_cast(float, uint32_t(b) << 16)); }

// The plain loop in that order, for x of float or bf16 bits.
template <class T>
double sum_squares_in_order(const T* x, int64_t n) {
  double l[32] = {};
  for (int64_t e = 0; e < n; ++e) {
    const double v = widen(x[e]);
    l[e % 32] = __builtin_fma(v, v, l[e % 32]);
  }
  return reduce32(l);
}

}  // namespace
}  // namespace sdc
