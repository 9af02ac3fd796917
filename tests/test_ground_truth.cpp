// MPFR ground truth against an independent exact method: a GMP fixed-point
// long accumulator (every product m1*m2*2^(e1+e2) added exactly as an integer).
#include <gmp.h>
#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <vector>

#include "harness/ground_truth/exact_dot.hpp"
#include "harness/random/streams.hpp"

using namespace sdc;

namespace {

// Exact sum_i a_i b_i as z * 2^shift with z an mpz integer.
void gmp_exact_dot(const std::vector<double>& a, const std::vector<double>& b, mpz_t z, long* shift) {
  long emin = 0;
  bool first = true;
  for (size_t i = 0; i < a.size(); ++i) {
    int ea, eb;
    std::frexp(a[i], &ea), std::frexp(b[i], &eb);
    const long e = long(ea - 53) + long(eb - 53);
    if (first || e < emin) emin = e, first = false;
  }
  mpz_set_ui(z, 0);
  mpz_t t, mb;
  mpz_inits(t, mb, nullptr);
  for (size_t i = 0; i < a.size(); ++i) {
    int ea, eb;
    const double ma = std::frexp(a[i], &ea), mbv = std::frexp(b[i], &eb);
    mpz_set_d(t, std::ldexp(ma, 53));  // integer mantissa, exact
    mpz_set_d(mb, std::ldexp(mbv, 53));
    mpz_mul(t, t, mb);
    mpz_mul_2exp(t, t, (unsigned long)(long(ea - 53) + long(eb - 53) - emin));
    mpz_add(z, z, t);
  }
  mpz_clears(t, mb, nullptr);
  *shift = emin;
}

}  // namespace

TEST(GroundTruth, MpfrDotEqualsGmpLongAccumulator) {
  rng g = make_stream(42, 0, 0, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> normal(0, 1);
  boost::random::uniform_int_distribution<int> expo(-60, 60), len(1, 700);
  for (int rep = 0; rep < 300; ++rep) {
    const int n = len(g);
    std::vector<double> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      // Wide dynamic range and cancellation: the cases where naive sums fail.
      a[size_t(i)] = std::ldexp(normal(g), rep % 3 ? expo(g) : 0);
      b[size_t(i)] = std::ldexp(normal(g), rep % 3 ? expo(g) : 0);
    }
    if (rep % 5 == 0 && n > 1) a[1] = -a[0] * b[0] / b[1];  // near-exact cancellation
    mpz_t z;
    mpz_init(z);
    long shift;
    gmp_exact_dot(a, b, z, &shift);
    // MPFR at a precision large enough to hold the exact value must equal it.
    const mpfr_prec_t bits = mpfr_prec_t(std::max<size_t>(64, mpz_sizeinbase(z, 2) + 2));
    mp_value exact(bits), from_gmp(bits);
    exact_dot(exact.get(), a.data(), 1, b.data(), 1, n);
    mpfr_set_z_2exp(from_gmp.get(), z, shift, MPFR_RNDN);
    EXPECT_EQ(mpfr_cmp(exact.get(), from_gmp.get()), 0) << "rep " << rep;
    // At the default 256 bits, both round to the same double.
    mp_value def;
    exact_dot(def.get(), a.data(), 1, b.data(), 1, n);
    EXPECT_EQ(def.to_double(), from_gmp.to_double()) << "rep " << rep;
    mpz_clear(z);
  }
}

TEST(GroundTruth, FloatInputsAndStrides) {
  std::vector<float> a = {1e8f, 1.0f, -1e8f, 3.0f}, b = {1.0f, 9.0f, 1.0f, 1.0f, 5.0f, 5.0f, 5.0f, 5.0f};
  mp_value v;
  exact_dot(v.get(), a.data(), 1, b.data(), 1, 4);  // 1e8 + 9 - 1e8 + 3 = 12
  EXPECT_EQ(v.to_double(), 12.0);
  std::vector<double> x = {1e300, 1.0, -1e300};
  mp_value s;
  exact_sum(s.get(), x.data(), 1, 3);
  EXPECT_EQ(s.to_double(), 1.0);
}

TEST(GroundTruth, SignificanceBands) {
  mp_value e;
  mpfr_set_d(e.get(), 1.0, MPFR_RNDN);
  EXPECT_EQ(classify_element(bf16(), e.get(), 1.0, 1.0).band, significance::masked);
  EXPECT_EQ(classify_element(bf16(), e.get(), 1.0, 1.0078125).band, significance::within_noise);  // 1 ulp
  EXPECT_EQ(classify_element(bf16(), e.get(), 1.0, 1.015625).band, significance::large);         // 2 ulps, 1.6e-2
  EXPECT_EQ(classify_element(bf16(), e.get(), 1.03125, 1.0078125).band, significance::within_noise)
      << "no worse than the clean output's own error";
  EXPECT_EQ(classify_element(fp32(), e.get(), 1.0, 1.0 + 1e-4).band, significance::small);
  EXPECT_EQ(classify_element(fp32(), e.get(), 1.0, 2.0).band, significance::large);
  EXPECT_EQ(classify_element(fp32(), e.get(), 1.0, std::nan("")).band, significance::large);
  const auto ee = classify_element(fp32(), e.get(), 1.0, 1.0 + std::ldexp(1.0, -20));
  EXPECT_DOUBLE_EQ(ee.err_ulps, 8.0);  // ulp(1) in fp32 = 2^-23
}
