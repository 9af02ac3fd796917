// Rates, intervals and tests against published or hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "foundation/scoring/proportions.hpp"

using namespace sdc;

TEST(Statistics, WilsonMatchesPublishedValues) {
  // Newcombe (1998), Table I: 0/10 -> [0, 0.2775]; 1/29 -> [0.0061, 0.1718]; 15/148 -> [0.0624, 0.1605].
  auto a = wilson_interval(0, 10);
  EXPECT_NEAR(a.lo, 0.0, 1e-4);
  EXPECT_NEAR(a.hi, 0.2775, 1e-4);
  auto b = wilson_interval(1, 29);
  EXPECT_NEAR(b.lo, 0.0061, 1e-4);
  EXPECT_NEAR(b.hi, 0.1718, 1e-4);
  auto c = wilson_interval(15, 148);
  EXPECT_NEAR(c.lo, 0.0624, 1e-4);
  EXPECT_NEAR(c.hi, 0.1605, 1e-4);
  auto d = wilson_interval(300, 300);
  EXPECT_NEAR(d.hi, 1.0, 1e-12);
  // A rate must lie inside its own interval: exactly 1 at x = n, 0 at x = 0
  // (the closed form rounds to 1 - 1e-16 at 30/30).
  for (int64_t n : {1, 7, 30, 1000}) {
    EXPECT_EQ(wilson_interval(n, n).hi, 1.0) << n;
    EXPECT_EQ(wilson_interval(0, n).lo, 0.0) << n;
    for (int64_t x = 0; x <= n; x += std::max<int64_t>(1, n / 7)) {
      const auto ci = wilson_interval(x, n);
      EXPECT_LE(ci.lo, double(x) / double(n));
      EXPECT_GE(ci.hi, double(x) / double(n));
    }
  }
  EXPECT_NEAR(d.lo, 0.98735, 1e-4);
  auto e = wilson_interval(0, 0);
  EXPECT_EQ(e.lo, 0.0);
  EXPECT_EQ(e.hi, 1.0);
}

TEST(Statistics, TwoProportion) {
  // 50/100 vs 70/100: pooled p = 0.6, z = 0.2 / sqrt(0.24 * 0.02) = 2.8868, two-sided p = 0.003892.
  EXPECT_NEAR(two_proportion_p(50, 100, 70, 100), 0.003892, 1e-5);
  EXPECT_EQ(two_proportion_p(0, 100, 0, 100), 1.0);
  EXPECT_TRUE(std::isnan(two_proportion_p(5, 0, 1, 10)));  // no trials: no test, not p = 1
}

TEST(Statistics, McNemar) {
  EXPECT_NEAR(mcnemar_p(0, 5), 0.0625, 1e-12);     // exact: 2 * 0.5^5
  EXPECT_NEAR(mcnemar_p(2, 8), 0.109375, 1e-12);   // exact: 2 * (1 + 10 + 45) / 1024
  EXPECT_EQ(mcnemar_p(0, 0), 1.0);
  EXPECT_EQ(mcnemar_p(6, 6), 1.0);
  // 30 vs 0: chi2 = 29^2 / 30 = 28.033, p = 1.19e-7.
  EXPECT_NEAR(mcnemar_p(30, 0), 1.194e-7, 0.01e-7);
}

TEST(Statistics, OutcomeBitsRoundTrip) {
  outcome_bits b(13);
  for (size_t t : {0, 3, 4, 12}) b.set(t, true);
  EXPECT_EQ(b.hex(), "9101");
  EXPECT_EQ(b.count(), 4);
  auto c = outcome_bits::from_hex(b.hex(), 13);
  for (size_t t = 0; t < 13; ++t) EXPECT_EQ(c.get(t), b.get(t));
  EXPECT_THROW(outcome_bits::from_hex("910", 13), std::exception);
  EXPECT_THROW(outcome_bits::from_hex("91g1", 13), std::exception);
}
