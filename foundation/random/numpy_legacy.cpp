#include "foundation/random/numpy_legacy.hpp"

#include <mpfr.h>

#include <cmath>

namespace sdc {
namespace {

double log_correctly_rounded(double x) {
  mpfr_t v;
  mpfr_init2(v, 53);
  mpfr_set_d(v, x, MPFR_RNDN);
  mpfr_log(v, v, MPFR_RNDN);
  const double out = mpfr_get_d(v, MPFR_RNDN);
  mpfr_clear(v);
  return out;
}

}  // namespace

double numpy_legacy_random::random_sample() {
  const uint32_t a = next_uint32() >> 5, b = next_uint32() >> 6;
  return (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
}

double numpy_legacy_random::standard_normal() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * random_sample() - 1.0;
    x2 = 2.0 * random_sample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * log_correctly_rounded(r2) / r2);
  gauss_ = f * x1, has_gauss_ = true;
  return f * x2;
}

int32_t numpy_legacy_random::randint(int32_t low, int32_t high) {
  const uint32_t range = uint32_t(int64_t(high) - 1 - low);
  if (range == 0) return low;
  uint32_t mask = range;
  for (int s = 1; s < 32; s <<= 1) mask |= mask >> s;
  uint32_t v;
  do v = next_uint32() & mask;
  while (v > range);
  return int32_t(int64_t(low) + v);
}

}  // namespace sdc
