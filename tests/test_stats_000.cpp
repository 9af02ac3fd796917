// 000_60f7924e74842bcb.txt: the critical shift of Theorem 1 (Table 3, golden),
// the folding test (Siffer et al.'s reference values), Algorithm 1's lines on
// hand-made samples (detectors/gradient/CONFORMANCE.md, "000 Algorithm 1 (paper)"), W1 against a
// direct integral of |F - G|, the robust z-score, the `stat` / `delta-crit` commands.
#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <fstream>
#include <bit>
#include <numbers>

#include "cli_runner.hpp"
#include "detectors/gradient/stats/unimodality.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/theory/critical_shift.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"
#include "protocol/detector.hpp"
#include "protocol/views/sample_view.hpp"

using namespace sdc;
using namespace sdc::testing;
using json = nlohmann::json;

namespace {

rng stats_rng(uint64_t salt) { return make_stream(2026, salt, 0, trial_kind::clean, stream_purpose::data); }

// Table 3 of 000 (p = 1e-10, bf16/fp32 exponent n = 8): sigma, Delta_crit, position.
struct table3_row {
  double sigma, delta, position;
};
constexpr table3_row k_table3[] = {{2.42, 18.14, 2.82}, {1.99, 14.92, 3.10}, {1.72, 12.87, 3.31},
                                   {1.81, 13.57, 3.24}, {1.79, 13.40, 3.26}, {1.77, 13.28, 3.27}};

TEST(DeltaCrit, ReproducesTable3) {
  // Tolerances of the issue: Delta_crit within 0.05, position within 0.01.
  for (const auto& r : k_table3) {
    const auto c = delta_crit(r.sigma, 1e-10);
    ASSERT_TRUE(c) << r.sigma;
    EXPECT_NEAR(c->delta, r.delta, 0.05) << "sigma " << r.sigma;
    EXPECT_NEAR(exponent_position(c->delta, 8), r.position, 0.01) << "sigma " << r.sigma;
  }
}

int local_maxima(double sigma, double p, double delta) {
  int peaks = 0;
  const double lo = -6 * sigma, hi = delta + 6 * sigma, h = sigma * 1e-3;
  double a = mixture_density(lo - h, sigma, p, delta, 0), b = mixture_density(lo, sigma, p, delta, 0);
  for (double y = lo + h; y < hi; y += h) {
    const double c = mixture_density(y, sigma, p, delta, 0);
    peaks += b > a && b > c;
    a = b, b = c;
  }
  return peaks;
}

TEST(DeltaCrit, IsTheOnsetOfBimodality) {
  // At Delta_crit the stationary point y* has f' = f'' = 0; just below the
  // mixture has one mode, just above two. (p = 0.05 keeps the second mode
  // visible in double precision; p = 1e-10 puts it 1e-10 below the first.)
  for (double sigma : {0.5, 1.0, 1.99}) {
    const auto c = delta_crit(sigma, 0.05);
    ASSERT_TRUE(c);
    const double f = mixture_density(c->y_star, sigma, 0.05, c->delta, 0);
    EXPECT_LT(std::fabs(mixture_density(c->y_star, sigma, 0.05, c->delta, 1)) * sigma / f, 1e-6);
    EXPECT_LT(std::fabs(mixture_density(c->y_star, sigma, 0.05, c->delta, 2)) * sigma * sigma / f, 1e-6);
    EXPECT_EQ(local_maxima(sigma, 0.05, c->delta * 0.98), 1) << sigma;
    EXPECT_EQ(local_maxima(sigma, 0.05, c->delta * 1.02), 2) << sigma;
  }
}

std::vector<double> draw(size_t n, uint64_t salt, auto&& dist) {
  rng g = stats_rng(salt);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(g);
  return v;
}

TEST(Folding, ReferenceValues) {
  // Siffer et al.: uniform data sit at the boundary, Phi = 1; N(mu, 1) gives
  // Phi = 4 (1 - 2/pi) with the pivot at mu. n = 200000: sampling sd of Phi ~ 0.005.
  const auto u = draw(200000, 1, boost::random::uniform_real_distribution<double>(0, 1));
  const auto fu = stats::folding_test(u);
  EXPECT_NEAR(fu.phi, 1.0, 0.02);
  EXPECT_NEAR(fu.pivot, 0.5, 0.01);
  const auto g = draw(200000, 2, boost::random::normal_distribution<double>(1, 1));
  const auto fg = stats::folding_test(g);
  EXPECT_NEAR(fg.phi, 4 * (1 - 2 / std::numbers::pi), 0.02);
  EXPECT_NEAR(fg.pivot, 1.0, 0.02);
  EXPECT_TRUE(fg.unimodal);
  EXPECT_LT(fg.p_value, 1e-6);  // clearly unimodal: |Phi - 1| = 0.45 at n = 2e5
  // A symmetric two-mode mixture: multimodal, pivot between the modes.
  auto mix = draw(20000, 3, boost::random::normal_distribution<double>(0, 1));
  for (size_t i = 0; i < mix.size(); i += 2) mix[i] += 10;
  const auto fm = stats::folding_test(mix);
  EXPECT_FALSE(fm.unimodal);
  EXPECT_NEAR(fm.pivot, 5.0, 0.2);
  EXPECT_LT(fm.p_value, 1e-6);
}

TEST(Folding, PValueInvertsTheRfoldingBound) {
  // Rfolding: q(n, d, p) = (a (1 - p) - b ln p)(ln d + c) / sqrt(n); |Phi - 1| = q has p-value p.
  // Down to tiny p-values (solved in log space; the bisection from 0 stopped near 3e-61).
  for (double p : {0.5, 0.05, 0.01, 1e-4, 1e-30, 1e-61, 1e-100, 1e-200, 1e-300})
    for (int n : {100, 10000}) {
      const double q = (0.4785 * (1 - p) - 0.1946 * std::log(p)) * 2.0287 / std::sqrt(double(n));
      EXPECT_NEAR(stats::folding_p_value(1 - q, n), p, 1e-9 * p) << p << " " << n;
    }
  EXPECT_EQ(stats::folding_p_value(1.0, 100), 1.0);
}

// folding_w1 as registered (tau = 3, alpha = 1 unless `params` say otherwise) on one sample V.
verdict algorithm1(const std::vector<double>& v, const json& params = json::object()) {
  const auto* info = find_detector(view_kind::sample, "folding_w1");
  EXPECT_NE(info, nullptr);
  auto d = info->make(detector_params(validate_params(*info, params), nullptr), {});
  sample_step s;
  s.data = {v.data(), int64_t(v.size())};
  return d->observe(s);
}
double metric(const verdict& v, const char* name) {
  for (const auto& [k, x] : v.metrics)
    if (k == name) return x;
  ADD_FAILURE() << "no metric " << name;
  return 0.0;
}

// Algorithm 1 stops when the folding test says unimodal: W1 is not computed,
// so folding_w1's score and metric w1 are not_computed (null in a result
// set), never 0; the folding statistics are still reported. On a multimodal
// sample both are W1's.
TEST(FoldingW1, AUnimodalSampleHasNoW1AndNoScore) {
  const verdict u = algorithm1(draw(2000, 40, boost::random::normal_distribution<double>(0, 1)));
  EXPECT_FALSE(u.flagged);
  EXPECT_GT(metric(u, "phi"), 1.0) << "a normal sample folds as unimodal";
  EXPECT_TRUE(is_not_computed(u.score)) << u.score;
  EXPECT_TRUE(is_not_computed(metric(u, "w1"))) << metric(u, "w1");
  auto mix = draw(2000, 41, boost::random::normal_distribution<double>(0, 1));
  for (size_t i = 0; i < mix.size(); i += 2) mix[i] += 10;
  const verdict m = algorithm1(mix);
  EXPECT_TRUE(m.flagged);
  EXPECT_FALSE(std::isnan(m.score));
  EXPECT_DOUBLE_EQ(m.score, metric(m, "w1") / 3.0);
}

// 000 Algorithm 1 lines 8-11: SDC iff d > tau, strictly. Two point masses fold
// onto one value (Phi = 0 < 1: multimodal), pivot halfway, W1 = their distance.
TEST(FoldingW1, Line8FlagsOnlyWhenW1ExceedsTauStrictly) {
  const verdict at = algorithm1({0, 0, 3, 3});
  EXPECT_EQ(metric(at, "phi"), 0.0);
  EXPECT_EQ(metric(at, "pivot"), 1.5);
  EXPECT_EQ(metric(at, "w1"), 3.0);
  EXPECT_FALSE(at.flagged) << "d = tau = 3: line 11, no SDC";
  EXPECT_TRUE(algorithm1({0, 0, 4, 4}).flagged) << "d = 4 > 3";
  EXPECT_TRUE(algorithm1({0, 0, 3, 3}, {{"tau", 2.9}}).flagged);
}

// Lines 2-4: unimodal (Phi >= 1, Siffer et al.'s rule; 000 names none) returns
// before W1. {+-10 x 3, 0 x 2}: Phi = 4 x (share of zeros) = 1 exactly.
TEST(FoldingW1, Line3ReturnsNoSdcWhenPhiIsOne) {
  const verdict v = algorithm1({-10, -10, -10, 0, 0, 10, 10, 10});
  EXPECT_EQ(metric(v, "phi"), 1.0);
  EXPECT_FALSE(v.flagged);
  EXPECT_TRUE(is_not_computed(metric(v, "w1")));
  // Fewer than 3 values or no spread: Phi is undefined; our reading: unimodal.
  EXPECT_FALSE(algorithm1({0, 10}).flagged);
  EXPECT_FALSE(algorithm1({5, 5, 5, 5}).flagged);
}

// Line 6 keeps v < s* and v > s*; 3.4's text puts v <= s* left, as we do:
// {+-10 x 3, 0}: s* = 0, Phi = 4/7, W1({-10 x 3, 0}, {10 x 3}) = 17.5 (not 20).
TEST(FoldingW1, Line6AValueAtThePivotJoinsTheLeftSide) {
  const verdict v = algorithm1({-10, -10, -10, 0, 10, 10, 10}, {{"tau", 18.0}});
  EXPECT_EQ(metric(v, "pivot"), 0.0);
  EXPECT_NEAR(metric(v, "phi"), 4.0 / 7, 1e-14);
  EXPECT_EQ(metric(v, "w1"), 17.5);
  EXPECT_FALSE(v.flagged);
}

// Algorithm 1 is undefined on a NaN or Inf log-norm; ours flags it first (HACKING.md).
TEST(FoldingW1, NonFiniteLogNormsAreFlaggedOutright) {
  for (double bad : {NAN, INFINITY, -INFINITY}) {
    const verdict v = algorithm1({0, 0.1, 0.2, bad});
    EXPECT_TRUE(v.flagged) << bad;
    EXPECT_EQ(metric(v, "nonfinite_norms"), 1.0);
  }
}

// Line 1: V = log ||g_i||, the Euclidean norm, the natural log (000 writes
// "log"; Theorem 1's log2 would scale W1, and so tau, by 1 / ln 2).
TEST(LogNorms, Line1IsTheNaturalLogOfTheEuclideanNorm) {
  const float g[] = {3, 4}, zero[] = {0, 0};
  EXPECT_DOUBLE_EQ(log_norm_fast(g, 2), std::log(5.0));
  EXPECT_DOUBLE_EQ(log_norm_reference(g, 2), std::log(5.0));
  EXPECT_EQ(log_norm_fast(zero, 2), -INFINITY);  // left out of V by both workloads
}

// The integral of |F_a - F_b| on a fine grid (midpoint rule): the definition.
double w1_by_integral(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> sa = a, sb = b;
  std::sort(sa.begin(), sa.end()), std::sort(sb.begin(), sb.end());
  const double lo = std::min(sa.front(), sb.front()), hi = std::max(sa.back(), sb.back());
  const int steps = 400000;
  const double h = (hi - lo) / steps;
  double w = 0;
  for (int i = 0; i < steps; ++i) {
    const double x = lo + (i + 0.5) * h;
    const double fa = double(std::upper_bound(sa.begin(), sa.end(), x) - sa.begin()) / double(sa.size());
    const double fb = double(std::upper_bound(sb.begin(), sb.end(), x) - sb.begin()) / double(sb.size());
    w += std::fabs(fa - fb) * h;
  }
  return w;
}

TEST(Wasserstein, AgreesWithTheIntegralOfCdfDifference) {
  for (uint64_t salt = 10; salt < 16; ++salt) {
    const auto a = draw(50 + salt * 7, salt, boost::random::normal_distribution<double>(0, 1));
    const auto b = draw(80 + salt * 3, salt + 100, boost::random::normal_distribution<double>(0.5 * double(salt % 3), 2));
    const double exact = stats::wasserstein1(a, b), grid = w1_by_integral(a, b);
    EXPECT_NEAR(exact, grid, 1e-3 * std::max(1.0, grid)) << salt;
  }
  // Equal sizes: eq. (3) of 000 is the same distance.
  const auto a = draw(300, 20, boost::random::normal_distribution<double>(0, 1));
  const auto b = draw(300, 21, boost::random::uniform_real_distribution<double>(-1, 3));
  EXPECT_NEAR(stats::wasserstein1(a, b), stats::wasserstein1_equal_n(a, b), 1e-12);
  // A shift moves every unit of mass by the shift.
  std::vector<double> c = a;
  for (auto& x : c) x += 7.25;
  EXPECT_NEAR(stats::wasserstein1(a, c), 7.25, 1e-12);
}

TEST(RobustZ, ScoresTheLargestValue) {
  const std::vector<double> v = {1, 2, 3, 4, 100};
  // median 3, |x - 3| = {2, 1, 0, 1, 97}, MAD = 1, z = 97 / 1.4826.
  EXPECT_NEAR(stats::robust_z_max(v), 97 / 1.4826, 1e-12);
  EXPECT_TRUE(std::isinf(stats::robust_z_max(std::vector<double>{1, 1, 1, 1, 2})));
  EXPECT_EQ(stats::robust_z_max(std::vector<double>{2, 2, 2}), 0.0);
}

TEST(LogNorms, FastEqualsReferenceBitForBit) {
  rng g = stats_rng(40);
  boost::random::normal_distribution<double> e(-12, 6);
  std::vector<float> x(5003);  // room for n = 4999 at the largest offset, 3 (ASan found the test reading past 5000)
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::exp2(e(g))) * (i % 3 ? 1.0f : -1.0f);
  x[17] = 3.0e38f;  // an exponent flip's size: its square needs fp64
  std::vector<uint16_t> b(x.size());
  for (size_t i = 0; i < x.size(); ++i) b[i] = uint16_t(std::bit_cast<uint32_t>(x[i]) >> 16);
  // Every SIMD level this CPU runs (the dispatched one and the others), as
  // well as the dispatched entry point.
  for (int64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 100, 257, 513, 1000, 4999})
    for (int64_t off : {0, 1, 3}) {
      const uint64_t want = std::bit_cast<uint64_t>(sum_squares_reference(x.data() + off, n));
      const uint64_t want16 = std::bit_cast<uint64_t>(sum_squares_bf16_reference(b.data() + off, n));
      EXPECT_EQ(std::bit_cast<uint64_t>(sum_squares_fast(x.data() + off, n)), want) << n << " +" << off;
      EXPECT_EQ(std::bit_cast<uint64_t>(sum_squares_bf16_fast(b.data() + off, n)), want16) << n << " +" << off;
      for (const simd_level l : supported_simd_levels()) {
        EXPECT_EQ(std::bit_cast<uint64_t>(sum_squares_at(l, x.data() + off, n)), want) << simd_name(l) << " " << n;
        EXPECT_EQ(std::bit_cast<uint64_t>(sum_squares_bf16_at(l, b.data() + off, n)), want16) << simd_name(l) << " " << n;
      }
    }
  EXPECT_TRUE(std::isfinite(log_norm_fast(x.data(), 100)));
  EXPECT_NEAR(log_norm_fast(x.data(), 100), std::log(3.0e38), 1e-6);
  const float nan = std::nanf("");
  EXPECT_TRUE(std::isnan(log_norm_fast(&nan, 1)));
}

TEST(StatCommand, RunsATestOnATextFile) {
  const auto d = scratch_dir("stat");
  {
    std::ofstream f(d + "/v.txt");
    f << "# log-norms\n";
    rng g = stats_rng(30);
    boost::random::normal_distribution<double> n(0, 1);
    for (int i = 0; i < 500; ++i) f << n(g) + (i % 10 == 0 ? 20.0 : 0.0) << (i % 7 ? " " : ",\n");
  }
  auto r = run_cli("stat folding_w1 " + d + "/v.txt");
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = json::parse(r.output);
  EXPECT_EQ(j["n"], 500);
  EXPECT_LT(j["statistic"].get<double>(), 1.0);  // Phi < 1: the folding test calls it multimodal
  EXPECT_EQ(j["params"]["tau"], 3.0);              // the registered detector's default, as in suites
  EXPECT_GT(j["w1"].get<double>(), 3.0);
  EXPECT_EQ(j["decision"], "SDC");
  auto u = run_cli("stat folding " + d + "/v.txt");
  ASSERT_EQ(u.code, 0);
  EXPECT_EQ(json::parse(u.output)["decision"], "multimodal");
  {
    std::ofstream f(d + "/bad.txt");
    f << "1 2 x3\n";
  }
  auto bad = run_cli("stat folding " + d + "/bad.txt");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("bad.txt: line 1"), std::string::npos) << bad.output;
  auto unknown = run_cli("stat dipp " + d + "/v.txt");
  EXPECT_EQ(unknown.code, 2);
}

TEST(DeltaCritCommand, PrintsTable3Row) {
  auto r = run_cli("delta-crit --sigma 1.99 --p 1e-10 --exponent-bits 8");
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = json::parse(r.output);
  EXPECT_NEAR(j["delta_crit"].get<double>(), 14.92, 0.05);
  EXPECT_NEAR(j["position"].get<double>(), 3.10, 0.01);
  EXPECT_EQ(run_cli("delta-crit --sigma -1").code, 2);
}

}  // namespace
