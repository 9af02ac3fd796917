// MPFR ground truth against an independent exact method: a GMP fixed-point
// long accumulator (every product m1*m2*2^(e1+e2) added exactly as an integer).
#include <gmp.h>
#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <bit>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "foundation/ground_truth/exact_accumulator.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/random/streams.hpp"

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

// Whether `exact` (filling an MPFR number of a precision large enough to hold
// sum_i a_i b_i exactly) gives the GMP long accumulator's value.
::testing::AssertionResult equals_gmp(const std::vector<double>& a, const std::vector<double>& b,
                                      const std::function<void(mpfr_ptr)>& exact) {
  mpz_t z;
  mpz_init(z);
  long shift;
  gmp_exact_dot(a, b, z, &shift);
  const mpfr_prec_t bits = mpfr_prec_t(std::max<size_t>(64, mpz_sizeinbase(z, 2) + 2));
  mp_value got(bits), from_gmp(bits);
  exact(got.get());
  mpfr_set_z_2exp(from_gmp.get(), z, shift, MPFR_RNDN);
  mpz_clear(z);
  if (mpfr_cmp(got.get(), from_gmp.get()) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got.to_double() << " != " << from_gmp.to_double();
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
    // MPFR at a precision large enough to hold the exact value must equal it
    // (the fast path and its MPFR twin alike).
    EXPECT_TRUE(equals_gmp(a, b, [&](mpfr_ptr out) { exact_dot(out, a.data(), 1, b.data(), 1, n); })) << "rep " << rep;
    EXPECT_TRUE(equals_gmp(a, b, [&](mpfr_ptr out) { exact_dot_mpfr(out, a.data(), 1, b.data(), 1, n); })) << "rep " << rep;
    // At the default 256 bits, it rounds to the same double as the exact value.
    mp_value def, wide(4096);
    exact_dot(def.get(), a.data(), 1, b.data(), 1, n);
    exact_dot(wide.get(), a.data(), 1, b.data(), 1, n);
    EXPECT_EQ(def.to_double(), wide.to_double()) << "rep " << rep;
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

// The exact accumulator (foundation/ground_truth/exact_accumulator.hpp), the
// fast path of exact_dot, exact_sum and exact_row_check_errors, against GMP
// and against their MPFR twins, bit for bit.
namespace {

// Any finite double: random sign, biased exponent and mantissa, so normal
// numbers of every binade, subnormals and zeros; `spread` limits the binades
// to [1023 - spread, 1023 + spread] (0: the whole range).
double random_double(rng& g, int spread) {
  boost::random::uniform_int_distribution<uint64_t> bits64;
  boost::random::uniform_int_distribution<int> expo(spread ? 1023 - spread : 0, spread ? 1023 + spread : 2046);
  const uint64_t b = bits64(g);
  return std::bit_cast<double>((b & 0x800FFFFFFFFFFFFFull) | (uint64_t(expo(g)) << 52));
}

bool same_value(mpfr_srcptr x, mpfr_srcptr y) {
  return (mpfr_nan_p(x) && mpfr_nan_p(y)) || (mpfr_equal_p(x, y) && mpfr_signbit(x) == mpfr_signbit(y));
}

}  // namespace

TEST(ExactAccumulator, EqualsGmpOverTheWholeRange) {
  rng g = make_stream(7, 0, 0, trial_kind::clean, stream_purpose::data);
  boost::random::uniform_int_distribution<int> len(1, 3000);  // past several carry propagations (512 adds)
  for (int rep = 0; rep < 120; ++rep) {
    const int n = len(g);
    std::vector<double> x(static_cast<size_t>(n));
    for (auto& v : x) v = random_double(g, rep % 4 == 0 ? 0 : (rep % 4 == 1 ? 1 : 40));
    if (rep % 3 == 0)  // cancel all but the last term, in a shuffled order
      for (int i = 0; i + 1 < n; i += 2) x[size_t(i + 1)] = -x[size_t(i)];
    if (rep % 7 == 0) x[0] = std::numeric_limits<double>::denorm_min();
    exact_accumulator acc;
    for (double v : x) acc.add(v);
    ASSERT_TRUE(acc.exact());
    EXPECT_TRUE(equals_gmp(x, std::vector<double>(x.size(), 1.0), [&](mpfr_ptr out) { acc.round_to(out); })) << "rep " << rep;
    for (mpfr_prec_t p : {mpfr_prec_t(24), mpfr_prec_t(53), k_ground_truth_bits}) {  // one rounding, as mpfr_sum
      mp_value fast(p), twin(p);
      exact_sum(fast.get(), x.data(), 1, n);
      exact_sum_mpfr(twin.get(), x.data(), 1, n);
      EXPECT_TRUE(same_value(fast.get(), twin.get())) << "rep " << rep << " at " << p << " bits";
    }
  }
}

TEST(ExactAccumulator, CarriesOfManyLargeTermsOfOneSign) {
  // 2^52 - 1 in the mantissa, shifted by 31 within its chunk: each addition
  // puts almost 2^53 into one chunk, which overflows a 64-bit word after
  // 1024 additions unless the carries move up in time.
  for (const double x : {std::ldexp(2.0 - 0x1p-52, 31 + 32 * 20 - 1075 + 52), -std::ldexp(2.0 - 0x1p-52, 1023)}) {
    exact_accumulator acc;
    const int n = 5000;
    for (int i = 0; i < n; ++i) acc.add(x);
    mp_value sum(128), expected(128);
    acc.round_to(sum.get());
    mpfr_set_d(expected.get(), x, MPFR_RNDN);
    mpfr_mul_ui(expected.get(), expected.get(), n, MPFR_RNDN);  // exact: 53 + 13 bits
    EXPECT_EQ(mpfr_cmp(sum.get(), expected.get()), 0) << x;
  }
}

TEST(ExactAccumulator, NonFiniteAndUnderflowingTermsAreNotExact) {
  exact_accumulator acc;
  acc.add(1.0);
  acc.add_product(3.0, 0.0);
  EXPECT_TRUE(acc.exact());
  acc.add_product(0x1p-600, 0x1p-400);  // error term below the subnormal range
  EXPECT_FALSE(acc.exact());
  acc.clear();
  acc.add_product(0x1p600, 0x1p500);  // overflows
  EXPECT_FALSE(acc.exact());
  acc.clear();
  acc.add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(acc.exact());
  // The MPFR twin takes such sums: the fast entry points give its values.
  const std::vector<double> a = {0x1p-600, 1.0, std::numeric_limits<double>::infinity()}, b = {0x1p-500, 2.0, 1.0};
  for (int64_t n : {2, 3}) {
    mp_value fast, twin;
    exact_dot(fast.get(), a.data(), 1, b.data(), 1, n);
    exact_dot_mpfr(twin.get(), a.data(), 1, b.data(), 1, n);
    EXPECT_TRUE(same_value(fast.get(), twin.get())) << n;
  }
}

TEST(ExactAccumulator, DotEqualsMpfrTwin) {
  rng g = make_stream(8, 0, 0, trial_kind::clean, stream_purpose::data);
  boost::random::uniform_int_distribution<int> len(1, 1100);
  for (int rep = 0; rep < 200; ++rep) {
    const int n = len(g);
    const int spread = rep % 3 == 0 ? 0 : (rep % 3 == 1 ? 2 : 300);  // 0: products that overflow or underflow
    std::vector<double> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (auto& v : a) v = random_double(g, spread);
    for (auto& v : b) v = random_double(g, spread);
    if (rep % 5 == 0 && n > 1 && b[1] != 0) a[1] = -a[0] * b[0] / b[1];
    mp_value fast, twin;
    exact_dot(fast.get(), a.data(), 1, b.data(), 1, n);
    exact_dot_mpfr(twin.get(), a.data(), 1, b.data(), 1, n);
    EXPECT_TRUE(same_value(fast.get(), twin.get())) << "rep " << rep << " n " << n;
  }
}

TEST(ExactAccumulator, RowCheckErrorsEqualMpfrTwin) {
  rng g = make_stream(9, 0, 0, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> normal(0, 1);
  boost::random::uniform_int_distribution<int> expo(-30, 30);
  struct shape { int64_t m, k, n; };
  for (const shape s : {shape{1, 1, 1}, shape{7, 13, 5}, shape{33, 257, 9}, shape{64, 64, 64}, shape{5, 1000, 3}})
    for (int dist = 0; dist < 3; ++dist) {
      auto draw = [&] { return dist == 0 ? normal(g) : std::ldexp(normal(g), expo(g)); };
      std::vector<double> A(size_t(s.m * s.k)), B(size_t(s.k * s.n)), C(size_t(s.m * s.n), 0.0);
      for (auto& v : A) v = draw();
      for (auto& v : B) v = draw();
      if (dist == 2)  // a row of B near the subnormal range: its products underflow, so the twin computes every row
        for (int64_t j = 0; j < s.n; ++j) B[size_t(j)] = std::ldexp(normal(g), -1000);
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t kk = 0; kk < s.k; ++kk)
          for (int64_t j = 0; j < s.n; ++j) C[size_t(i * s.n + j)] += A[size_t(i * s.k + kk)] * B[size_t(kk * s.n + j)];
      std::vector<double> fast(size_t(s.m)), twin(size_t(s.m));
      exact_row_check_errors(A.data(), B.data(), C.data(), s.m, s.k, s.n, fast.data());
      exact_row_check_errors_mpfr(A.data(), B.data(), C.data(), s.m, s.k, s.n, twin.data());
      EXPECT_EQ(fast, twin) << s.m << "x" << s.k << "x" << s.n << " dist " << dist;
      const std::vector<float> Af(A.begin(), A.end()), Bf(B.begin(), B.end()), Cf(C.begin(), C.end());
      exact_row_check_errors(Af.data(), Bf.data(), Cf.data(), s.m, s.k, s.n, fast.data());
      exact_row_check_errors_mpfr(Af.data(), Bf.data(), Cf.data(), s.m, s.k, s.n, twin.data());
      EXPECT_EQ(fast, twin) << "fp32 " << s.m << "x" << s.k << "x" << s.n << " dist " << dist;
    }
}
