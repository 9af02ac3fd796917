// Appendix A of 000_60f7924e74842bcb.txt: the dip test (the published values of
// Maechler's diptest and Hartigan's example; the qDiptab table against our own
// dip on simulated uniform samples), the KS distribution under the UU-test
// (Marsaglia, Tsang & Wang's example), the UU-test, and Silverman's test (the
// two-Gaussian bimodality threshold, binned against exact evaluation), plus
// `sdcbench stat` for the three.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <fstream>
#include <vector>

#include "cli_runner.hpp"
#include "detectors/gradient/stats/dip.hpp"
#include "detectors/gradient/stats/silverman.hpp"
#include "detectors/gradient/stats/uu_test.hpp"
#include "foundation/random/streams.hpp"

using namespace sdc;
using namespace sdc::testing;
using json = nlohmann::json;

namespace {

rng mm_rng(uint64_t salt) { return make_stream(2027, salt, 0, trial_kind::clean, stream_purpose::data); }

std::vector<double> normal_mixture(rng& g, int n, double shift, double p_shift) {
  boost::random::normal_distribution<double> nd(0, 1);
  boost::random::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = nd(g) + (u(g) < p_shift ? shift : 0.0);
  return v;
}

std::vector<double> uniform_sample(rng& g, int n) {
  boost::random::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(g);
  return v;
}

// Hartigan & Hartigan's (1985) statistics-faculty data (diptest's statfaculty).
const std::vector<double> k_statfaculty = {30, 33, 35, 36, 37, 37, 39, 39, 39, 39, 39, 40, 40, 40, 40, 41,
                                           42, 43, 43, 43, 44, 44, 45, 45, 46, 46, 47, 47, 48, 48, 48, 49,
                                           50, 50, 51, 52, 52, 53, 53, 53, 53, 53, 54, 54, 57, 57, 59, 60,
                                           60, 60, 61, 61, 61, 61, 62, 62, 62, 62, 63, 66, 70, 72, 72};

TEST(Dip, PublishedValues) {
  // diptest's tests/ex1.R and its vignette.
  EXPECT_DOUBLE_EQ(stats::dip_test(std::vector<double>{1, 1, 2, 2}).dip, 0.25);  // two-point: the largest dip
  EXPECT_DOUBLE_EQ(stats::dip_test(std::vector<double>{0, 1, 3, 6}).dip, 1.0 / 8);  // unimodal: 1/(2n)
  EXPECT_DOUBLE_EQ(stats::dip_test(std::vector<double>{0, -1, -3, -6}).dip, 1.0 / 8);
  EXPECT_NEAR(stats::dip_test(std::vector<double>{0, 2, 3, 5, 6}).dip, 2.0 / 15, 1e-15);  // 2n D = 4/3
  EXPECT_NEAR(stats::dip_test(std::vector<double>{0, 1, 3, 4, 6}).dip, 2.0 / 15, 1e-15);
  std::vector<double> lu(10, 2.0);
  lu[0] = 1;
  EXPECT_DOUBLE_EQ(stats::dip_test(lu).dip, 0.05);  // a point mass at the mode adds nothing
  for (auto& x : lu) x = 3 - x;
  EXPECT_DOUBLE_EQ(stats::dip_test(lu).dip, 0.05);
  // statfaculty: 2n D = 7.5, modal interval [39, 54], p-value 0.08672 (dip.test).
  const auto s = stats::dip_test(k_statfaculty);
  EXPECT_NEAR(s.dip, 7.5 / 126, 1e-15);
  EXPECT_EQ(s.mode_lo, 39);
  EXPECT_EQ(s.mode_hi, 54);
  EXPECT_NEAR(s.p_value, 0.08672, 5e-6);
}

TEST(Dip, TableIsWellFormed) {
  const auto t = stats::dip_table();
  ASSERT_EQ(t.rows, 21);
  ASSERT_EQ(t.probs.size(), 26u);
  EXPECT_EQ(t.n_at(0), 4);
  EXPECT_EQ(t.n_at(t.rows - 1), 72000);
  for (int r = 0; r < t.rows; ++r) {
    if (r > 0) {
      EXPECT_GT(t.n_at(r), t.n_at(r - 1));
    }
    for (int c = 1; c < 26; ++c) EXPECT_GE(t.quantile(r, c), t.quantile(r, c - 1)) << "row " << r << " col " << c;
    // The smallest possible dip is 1/(2n): the 0 quantile for small n.
    if (t.n_at(r) <= 10) {
      EXPECT_NEAR(t.quantile(r, 0), 0.5 / double(t.n_at(r)), 1e-15);
    }
    EXPECT_LE(t.quantile(r, 25), 0.25);
  }
}

TEST(Dip, NullDistributionMatchesTheTable) {
  // Our dip on uniform samples against the table (built by the diptest authors
  // from their dip on uniform samples): the fraction of 2000 samples below the
  // tabled 50/90/95 % quantiles, within 0.035 (3 standard errors at most).
  const auto t = stats::dip_table();
  const int B = 2000;
  for (int row : {7, 11, 14}) {  // n = 15, 100, 1000
    const int n = int(t.n_at(row));
    rng g = mm_rng(uint64_t(n));
    std::vector<double> dips;
    int rejected = 0;
    for (int b = 0; b < B; ++b) {
      const auto r = stats::dip_test(uniform_sample(g, n));
      dips.push_back(r.dip);
      rejected += r.p_value < 0.05;
    }
    for (const auto& [col, prob] : {std::pair{8, 0.5}, std::pair{12, 0.9}, std::pair{13, 0.95}}) {
      const double q = t.quantile(row, col);
      const double below = double(std::count_if(dips.begin(), dips.end(), [&](double d) { return d <= q; })) / B;
      EXPECT_NEAR(below, prob, 0.035) << "n = " << n << ", quantile " << prob;
    }
    // The p-value is calibrated: 5 % of uniform samples below 0.05 (+- 0.02).
    EXPECT_NEAR(double(rejected) / B, 0.05, 0.02) << "n = " << n;
  }
}

TEST(Dip, InvariantUnderReflectionAndAffineMaps) {
  rng g = mm_rng(3);
  boost::random::uniform_int_distribution<int> level(0, 7);
  for (int t = 0; t < 3000; ++t) {
    const int n = 4 + t % 60;
    std::vector<double> x(static_cast<size_t>(n)), neg(x.size()), aff(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = level(g);  // many ties on purpose
      neg[i] = -x[i];
      aff[i] = 0.5 * x[i] + 7;
    }
    const double d = stats::dip_test(x).dip;
    ASSERT_NEAR(stats::dip_test(neg).dip, d, 1e-12) << "t = " << t;
    ASSERT_NEAR(stats::dip_test(aff).dip, d, 1e-12) << "t = " << t;
    ASSERT_GE(d, 0.5 / n - 1e-15);
    ASSERT_LE(d, 0.25 + 1e-15);
  }
}

TEST(Dip, PValueInterpolatesTheTable) {
  const auto t = stats::dip_table();
  // At a tabled n and a tabled quantile with distinct neighbours: 1 - probability.
  for (int row : {10, 13, 18})
    for (int col : {10, 13, 15}) EXPECT_NEAR(stats::dip_p_value(t.quantile(row, col), t.n_at(row)), 1 - t.probs[size_t(col)], 1e-12);
  // Monotone in the dip; clamped at both ends; 1 for n <= 3.
  double prev = 1;
  for (double d = 0.001; d < 0.2; d += 0.001) {
    const double p = stats::dip_p_value(d, 300);
    EXPECT_LE(p, prev + 1e-15);
    prev = p;
  }
  EXPECT_EQ(stats::dip_p_value(1e-6, 300), 1.0);
  EXPECT_EQ(stats::dip_p_value(0.25, 300), 0.0);
  EXPECT_EQ(stats::dip_p_value(0.25, 3), 1.0);
  // Beyond n = 72000 the last row is the asymptotic one (sqrt(n) D scale).
  const double q = t.quantile(t.rows - 1, 13);
  EXPECT_NEAR(stats::dip_p_value(q * std::sqrt(72000.0 / 288000.0), 288000), 0.05, 1e-12);
}

TEST(Dip, RejectsASeparatedMixture) {
  rng g = mm_rng(4);
  EXPECT_LT(stats::dip_test(normal_mixture(g, 500, 6.0, 0.5)).p_value, 0.01);
}

TEST(KolmogorovSmirnov, MarsagliaTsangWangExample) {
  // Their paper's example: K(10, 0.274) = 0.6284796154565043.
  EXPECT_NEAR(stats::ks_cdf_exact(0.274, 10), 0.6284796154565043, 1e-13);
  // n = 1: P(D < d) = 2d - 1 on [1/2, 1].
  EXPECT_NEAR(stats::ks_cdf_exact(0.75, 1), 0.5, 1e-14);
  // Exact and Stephens-corrected limit agree at n = 100 (the switch-over): within
  // 0.003 in the tail the tests decide in (p < 0.2), 0.01 in the body.
  for (double d = 0.08; d < 0.25; d += 0.01) {
    const double stephens = stats::kolmogorov_q((10 + 0.12 + 0.011) * d);
    EXPECT_NEAR(1 - stats::ks_cdf_exact(d, 100), stephens, stephens < 0.2 ? 0.003 : 0.01) << d;
    EXPECT_NEAR(stats::ks_p_value(d, 100), 1 - stats::ks_cdf_exact(d, 100), 1e-15);
  }
}

TEST(UUTest, UniformAndNormalAreUnimodal) {
  rng g = mm_rng(5);
  const auto u = stats::uu_test(uniform_sample(g, 800));
  EXPECT_TRUE(u.unimodal);
  EXPECT_GE(u.segments, 1);
  int false_alarms = 0;
  for (int t = 0; t < 60; ++t) false_alarms += !stats::uu_test(normal_mixture(g, 500, 0, 0)).unimodal;
  EXPECT_LE(false_alarms, 3) << "of 60 N(0,1) samples";
}

TEST(UUTest, SeparatedMixtureIsMultimodal) {
  rng g = mm_rng(6);
  int found = 0;
  for (int t = 0; t < 20; ++t) found += !stats::uu_test(normal_mixture(g, 1000, 6.0, 0.5)).unimodal;
  EXPECT_GE(found, 19) << "of 20 samples of 0.5 N(0,1) + 0.5 N(6,1)";
}

TEST(UUTest, WorksOnDistinctValues) {
  rng g = mm_rng(7);
  std::vector<double> x = normal_mixture(g, 300, 5.0, 0.4);
  for (auto& v : x) v = std::round(v * 20) / 20;  // ties
  std::vector<double> u = x;
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  const auto a = stats::uu_test(x), b = stats::uu_test(u);
  EXPECT_EQ(a.n_distinct, int64_t(u.size()));
  EXPECT_EQ(a.unimodal, b.unimodal);
  EXPECT_EQ(a.segments, b.segments);
}

TEST(Silverman, TwoPointsBecomeUnimodalAtHalfTheirDistance) {
  // 0.5 N(0, h^2) + 0.5 N(d, h^2) is bimodal iff d > 2h: h_crit = d / 2.
  const std::vector<double> two = {0.0, 3.0};
  EXPECT_EQ(stats::kde_modes_exact(two, 1.47), 2);
  EXPECT_EQ(stats::kde_modes_exact(two, 1.53), 1);
  EXPECT_NEAR(stats::critical_bandwidth(two, 1, true), 1.5, 1.5 * 0.01);
  EXPECT_NEAR(stats::critical_bandwidth(two, 1, false), 1.5, 1.5 * 0.02);
}

TEST(Silverman, BinnedAgreesWithExactEvaluation) {
  // The fast path (binned, finished with windowed exact sums) against exact
  // sums throughout: the critical bandwidths for 1 and 2 modes agree to the
  // promised 1e-4 (binning alone was 0.2-0.4 % low); mode counts never rise
  // with h (Silverman's monotonicity) in the exact evaluation.
  rng g = mm_rng(8);
  for (int t = 0; t < 12; ++t) {
    auto x = normal_mixture(g, 150, 3.0 + t % 3, 0.3);
    std::sort(x.begin(), x.end());
    for (int k : {1, 2}) {
      const double e = stats::critical_bandwidth(x, k, true), b = stats::critical_bandwidth(x, k, false);
      EXPECT_NEAR(b / e, 1.0, 1e-4) << "t = " << t << ", k = " << k;
    }
    int prev = 1 << 30;
    for (double h = 0.05; h < 3; h *= 1.3) {
      const int m = stats::kde_modes_exact(x, h);
      EXPECT_LE(m, prev) << "h = " << h;
      prev = m;
    }
  }
}

TEST(Silverman, ValuesNearTheEndsOfFp64AreScaledNotOverflowed) {
  // The range 1e300 - (-1e300) overflows, and so would the bootstrap's
  // variance: scaling by a power of two is exact, so h scales with the data.
  const std::vector<double> two = {0.0, 3.0}, big = {-1e300, 1e300}, tiny = {0.0, 3e-310};
  const double h = stats::critical_bandwidth(two, 1, false);
  EXPECT_NEAR(stats::critical_bandwidth(big, 1, false) / 1e300, h * 2 / 3, h * 1e-3);
  EXPECT_NEAR(stats::critical_bandwidth(tiny, 1, false) / 1e-310, h, h * 1e-3);
  const auto r = stats::silverman_test(std::vector<double>{0, 0, 0, 1e-300, 1e300, -1e300, 5}, 20, 1);
  EXPECT_TRUE(std::isfinite(r.h_crit));
  EXPECT_GE(r.p_value, 0.0);
  EXPECT_LE(r.p_value, 1.0);
}

TEST(Silverman, SizeAndPower) {
  rng g = mm_rng(9);
  int null_rejects = 0, alt_rejects = 0;
  for (int t = 0; t < 20; ++t) {
    null_rejects += stats::silverman_test(normal_mixture(g, 300, 0, 0), 60, uint64_t(t)).p_value < 0.05;
    alt_rejects += stats::silverman_test(normal_mixture(g, 300, 5.0, 0.5), 60, uint64_t(t)).p_value < 0.05;
  }
  EXPECT_LE(null_rejects, 3) << "of 20 N(0,1) samples";
  EXPECT_GE(alt_rejects, 19) << "of 20 samples of 0.5 N(0,1) + 0.5 N(5,1)";
}

TEST(Silverman, PValueDependsOnlyOnTheSampleAndSeed) {
  rng g = mm_rng(10);
  auto x = normal_mixture(g, 200, 2.5, 0.5);
  const auto a = stats::silverman_test(x, 80, 1);
  std::reverse(x.begin(), x.end());
  const auto b = stats::silverman_test(x, 80, 1);
  EXPECT_EQ(a.h_crit, b.h_crit);
  EXPECT_EQ(a.exceed, b.exceed);
  EXPECT_EQ(a.B, 80);
}

TEST(StatCommand, RunsTheAppendixATests) {
  const auto d = scratch_dir("stat-appendix-a");
  {
    std::ofstream f(d + "/faculty.txt");
    for (double v : k_statfaculty) f << v << "\n";
  }
  auto dip = run_cli("stat dip " + d + "/faculty.txt");
  ASSERT_EQ(dip.code, 0) << dip.output;
  const json j = json::parse(dip.output);
  EXPECT_NEAR(j["statistic"].get<double>(), 0.059524, 1e-6);
  EXPECT_NEAR(j["p_value"].get<double>(), 0.08672, 5e-6);
  EXPECT_EQ(j["decision"], "unimodal");
  auto s1 = run_cli("stat silverman " + d + "/faculty.txt --B 40 --seed 3");
  auto s2 = run_cli("stat silverman " + d + "/faculty.txt --B 40 --seed 3");
  ASSERT_EQ(s1.code, 0) << s1.output;
  EXPECT_EQ(s1.output, s2.output);
  EXPECT_EQ(json::parse(s1.output)["B"], 40);
  auto uu = run_cli("stat uu_test " + d + "/faculty.txt");
  ASSERT_EQ(uu.code, 0) << uu.output;
  EXPECT_EQ(json::parse(uu.output)["decision"], "unimodal");
  auto bad = run_cli("stat dip " + d + "/faculty.txt --alpha 0");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("--alpha"), std::string::npos) << bad.output;
  EXPECT_EQ(run_cli("stat silverman " + d + "/faculty.txt --B 0").code, 2);
}

}  // namespace
