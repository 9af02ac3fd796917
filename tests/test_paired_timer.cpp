// The benches' interval for a median (bench/paired_timer.hpp median_ci95):
// the order statistics a binomial(n, 1/2) count gives, checked against the
// tabulated ranks (n = 6: min and max, 96.9 % coverage, where n = 5 would
// give 93.75 % and so gives none; n = 9:
// the 2nd and 8th; n = 100: the 40th and 61st), none below 6 values, and
// the coverage itself by simulation on a skewed population. The ratio to
// each base alone (the largest of them) and the bias of a per-iteration
// minimum on an A/A pair, on recorded times.
#include <gtest/gtest.h>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "bench/paired_timer.hpp"

namespace {

using sdc::bench::median_ci95;

std::vector<double> one_to(int n) {  // 1 .. n, shuffled so the function must sort
  std::vector<double> x(static_cast<size_t>(n), 0.0);
  std::iota(x.begin(), x.end(), 1.0);
  for (size_t i = 0; i + 1 < x.size(); i += 2) std::swap(x[i], x[i + 1]);
  return x;
}

TEST(MedianCi95, OrderStatisticsOfTheBinomialRanks) {
  for (int n : {0, 1, 5}) {
    const auto [lo, hi] = median_ci95(one_to(n));
    EXPECT_TRUE(std::isnan(lo) && std::isnan(hi)) << n;
  }
  EXPECT_EQ(median_ci95(one_to(6)), std::make_pair(1.0, 6.0));
  EXPECT_EQ(median_ci95(one_to(9)), std::make_pair(2.0, 8.0));
  EXPECT_EQ(median_ci95(one_to(100)), std::make_pair(40.0, 61.0));
}

TEST(MedianCi95, CoversTheMedianOfASkewedPopulation) {
  boost::random::mt19937_64 g(11);
  boost::random::exponential_distribution<double> e(1.0);
  const double median = std::log(2.0);
  for (int n : {6, 9, 25}) {
    int covered = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> x(static_cast<size_t>(n), 0.0);
      for (auto& v : x) v = e(g);
      const auto [lo, hi] = median_ci95(x);
      covered += lo <= median && median <= hi;
    }
    EXPECT_GE(double(covered) / trials, 0.94) << n;  // >= 95 % less Monte Carlo error (sd 0.35 %)
  }
}

// Iterations of (v, a, twin, b): v takes 1.0; a alternates 1.0 and 1.1, its
// twin the other way round, b is 0.9 a. v over a has median (1 + 1/1.1) / 2,
// over b (1/0.9 + 1/0.99) / 2, the largest, with the extremes as its interval
// (8 values). The per-iteration minimum of a and its twin is 1.0 every time:
// v over it is 1, so the minimum makes v look 1 / ((1 + 1/1.1) / 2) - 1 =
// 4.8 % slower than over a alone; a twin equal to a, 0 %.
TEST(PairedTimer, LargestRatioAndTheBiasOfAMinimum) {
  sdc::bench::paired_timer t, same;
  for (int i = 0; i < 8; ++i) {
    const double a = i % 2 ? 1.1 : 1.0, twin = i % 2 ? 1.0 : 1.1;
    t.record({1.0, a, twin, 0.9 * a});
    same.record({1.0, a, a});
  }
  const double over_a = (1 + 1 / 1.1) / 2;
  const auto r = t.largest_ratio(0, {1, 3});
  EXPECT_EQ(r.base, 3u);
  EXPECT_NEAR(r.median, (1 / 0.9 + 1 / 0.99) / 2, 1e-12);
  EXPECT_NEAR(r.lo, 1 / 0.99, 1e-12);
  EXPECT_NEAR(r.hi, 1 / 0.9, 1e-12);
  EXPECT_NEAR(t.largest_ratio(0, {1}).median, over_a, 1e-12);
  EXPECT_NEAR(t.min_bias(0, 1, 2), 1 / over_a - 1, 1e-12);
  EXPECT_NEAR(same.min_bias(0, 1, 2), 0.0, 1e-12);
}

// warm_up::self calls each variant twice in a row, the second timed (one
// sample per variant per iteration); none, once. `before` precedes both.
TEST(PairedTimer, WarmUpCallsEachVariantRightBeforeItsTimedCall) {
  for (const auto w : {sdc::bench::warm_up::none, sdc::bench::warm_up::self}) {
    sdc::bench::paired_timer t;
    t.set_warm_up(w);
    std::vector<int> log;
    const std::vector<std::function<void()>> variants = {[&] { log.push_back(0); }, [&] { log.push_back(1); },
                                                         [&] { log.push_back(2); }};
    for (size_t it = 0; it < 3; ++it) t.measure(variants, it, [&] { log.push_back(-1); });
    const size_t calls = w == sdc::bench::warm_up::self ? 2 : 1;
    ASSERT_EQ(log.size(), 3 * 3 * (calls + 1));
    for (size_t i = 0; i < log.size(); i += calls + 1) {
      EXPECT_EQ(log[i], -1) << i;
      for (size_t c = 1; c <= calls; ++c) EXPECT_EQ(log[i + c], log[i + 1]) << i;
      EXPECT_GE(log[i + 1], 0) << i;
    }
    EXPECT_EQ(t.iterations(), 3u);
  }
}

}  // namespace
