// 002's consistency metrics, torch-free, against their direct twin and the
// paper's equations on hand-made gradients; its outlier detectors and 000's
// Algorithm 1 on each rank's gradient before the all-reduce
// (detectors/consistency/CONFORMANCE.md, "002 metrics (paper)";
// detectors/gradient/CONFORMANCE.md, "000 Algorithm 1 (paper)"; 003's checks:
// test_silent_check.cpp).
#include <gtest/gtest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "detectors/consistency/consistency.hpp"
#include "training_detector_harness.hpp"

namespace sdc {
namespace {

std::vector<std::vector<float>> random_grads(size_t R, size_t P, uint64_t seed) {
  boost::random::mt19937_64 g(seed);
  boost::random::normal_distribution<double> z;
  std::vector<std::vector<float>> out(R);
  for (auto& v : out)
    for (size_t p = 0; p < P; ++p) v.push_back(float(z(g) + (p % 7 == 0 ? 0.8 : 0.0)));  // a shared direction
  return out;
}

TEST(Consistency, UnitVectorAllReduceEqualsPairwiseCosines) {
  const auto g = random_grads(6, 5000, 3);
  std::vector<std::span<const float>> spans(g.begin(), g.end());
  const std::vector<double> losses = {2.0, 2.5, 1.5, 2.0, 3.0, 2.2};
  const consistency fast = consistency_metrics(losses, spans), ref = consistency_reference(losses, spans);
  EXPECT_NEAR(fast.cos_mean, ref.cos_mean, 1e-12);
  EXPECT_GT(ref.cos_mean, 0.05);  // the shared direction shows
  for (size_t r = 0; r < 6; ++r) {
    EXPECT_NEAR(fast.cos_to_rest[r], ref.cos_to_rest[r], 1e-12);
    EXPECT_NEAR(fast.norms[r], ref.norms[r], 1e-12 * ref.norms[r]);  // 8 partial sums against one
  }
  EXPECT_NEAR(fast.loss_range, 1.5, 1e-15);
  const double mean = (2.0 + 2.5 + 1.5 + 2.0 + 3.0 + 2.2) / 6;
  double ss = 0;
  for (double l : losses) ss += (l - mean) * (l - mean);
  EXPECT_NEAR(fast.loss_std, std::sqrt(ss / 6), 1e-15);  // population std over ranks
}

TEST(Consistency, IdenticalAndOppositeGradients) {
  const std::vector<float> a = {1, 2, 3}, b = {-1, -2, -3};
  const std::vector<double> l = {1, 1};
  auto same = consistency_metrics(l, {a, a});
  EXPECT_NEAR(same.cos_mean, 1, 1e-15);
  EXPECT_NEAR(same.cos_to_rest[1], 1, 1e-15);
  EXPECT_EQ(same.norm_range, 0);
  auto opposite = consistency_metrics(l, {a, b});
  EXPECT_NEAR(opposite.cos_mean, -1, 1e-15);
  EXPECT_NEAR(opposite.cos_to_rest[0], -1, 1e-15);
  const std::vector<float> zero = {0, 0, 0};
  EXPECT_TRUE(std::isnan(consistency_metrics(l, {a, zero}).cos_mean));  // no direction
}

TEST(Consistency, RobustZOverRanks) {
  const std::vector<double> x = {1, 2, 3, 4, 100};
  const auto z = robust_z_over_ranks(x);
  EXPECT_NEAR(z[4], 97 / 1.4826, 1e-12);
  EXPECT_NEAR(z[0], -2 / 1.4826, 1e-12);
  const std::vector<double> flat = {5, 5, 5, 7};
  EXPECT_EQ(robust_z_over_ranks(flat)[0], 0);
  EXPECT_EQ(robust_z_over_ranks(flat)[3], INFINITY);
}

// 002 eqs. (4)-(6): ||g_i|| (Euclidean), their mean and standard deviation over
// the workers (population: 002 does not say), and the range of its Figure 8.
TEST(Consistency, Eq4To6NormMeanStdAndRangeOverWorkers) {
  const std::vector<float> a = {3, 4}, b = {9, 12};  // norms 5 and 15
  const consistency c = consistency_metrics(std::vector<double>{1, 3}, {a, b});
  EXPECT_EQ(c.norms, (std::vector<double>{5, 15}));
  EXPECT_EQ(c.norm_mean, 10);
  EXPECT_EQ(c.norm_std, 5);  // sqrt((25 + 25) / 2); the n - 1 std would be 7.07
  EXPECT_EQ(c.norm_range, 10);
  EXPECT_EQ(c.loss_std, 1);  // eqs. (1)-(3) on the losses
  EXPECT_EQ(c.loss_range, 2);
}

// 002 eqs. (7)-(8): the cosine of each unordered pair of workers, averaged over
// the R (R - 1) / 2 pairs: (1, 0), (0, 1), (1, 1) give (0 + 2 / sqrt 2) / 3.
TEST(Consistency, Eq8AveragesTheCosineOverTheUnorderedPairs) {
  const std::vector<float> a = {1, 0}, b = {0, 1}, c = {1, 1};
  const std::vector<double> l = {0, 0, 0};
  EXPECT_NEAR(consistency_metrics(l, {a, b, c}).cos_mean, std::sqrt(2.0) / 3, 1e-15);
  EXPECT_NEAR(consistency_reference(l, {a, b, c}).cos_mean, std::sqrt(2.0) / 3, 1e-15);
}

// One step of R ranks, each with a flat gradient of one parameter `w` whose rows are given.
struct rank_steps {
  training_layout layout;
  std::vector<training_step> steps;
  rank_steps(const std::vector<std::vector<float>>& grads, int64_t row) {
    layout.names = {"w"}, layout.offsets = {0}, layout.numel = int64_t(grads[0].size());
    layout.shapes = {{layout.numel / row, row}};
    for (const auto& g : grads) {
      training_step s;
      s.rank = int(steps.size()), s.grads = g, s.layout = &layout;
      steps.push_back(std::move(s));
    }
  }
};

// Ours (002 defines no test): |robust z| of the log-norm over the ranks > 5.
TEST(GradNormOutlier, BlamesTheRankWhoseLogNormIsARobustOutlier) {
  const float e = std::exp(10.0f);
  rank_steps r({{1}, {std::exp(0.1f)}, {std::exp(-0.1f)}, {std::exp(0.05f)}, {e}}, 1);
  auto d = testing::make_training_detector("grad_norm_outlier", nlohmann::json::object());
  d->reset({});
  const verdict v = d->observe(testing::ptrs(r.steps));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 4);
  EXPECT_NEAR(v.score, 9.95 / (1.4826 * 0.05) / 5, 1e-3);  // median 0.05, MAD 0.05
}

// Ours: a rank whose cosine to the sum of the others' unit vectors has z < -5.
TEST(CosineOutlier, BlamesTheRankPointingAway) {
  rank_steps r({{1, 0.01f}, {1, -0.02f}, {-1, 0}, {1, 0.03f}, {1, 0}}, 2);
  auto d = testing::make_training_detector("cosine_outlier", nlohmann::json::object());
  d->reset({});
  const verdict v = d->observe(testing::ptrs(r.steps));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 2);
}

// 000 section 4 and Algorithm 1 per rank, before the collective: each rank's
// own gradient, cut per row (our default), zero rows left out of V. Rank 1's
// rows have log-norms {0 x 4, 4 x 4} (Phi = 0, W1 = 4 > 3); rank 0's are all 0.
TEST(TrainingFoldingW1, EachRankTestsItsOwnRowsBeforeTheAllReduce) {
  const float big = std::exp(4.0f);
  std::vector<float> flat(18, 0.0f), spread(18, 0.0f);
  for (size_t i = 0; i < 8; ++i) flat[2 * i] = 1, spread[2 * i] = i < 4 ? 1 : big;
  rank_steps r({flat, spread}, 2);  // the ninth row is zero
  auto d = testing::make_training_detector("folding_w1", nlohmann::json::object());
  episode_context e;
  e.ranks = 2;
  d->reset(e);
  const verdict v = d->observe(testing::ptrs(r.steps));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 1);
  double m = 0;
  for (const auto& [k, x] : v.metrics) m = k == "log_norms" ? x : m;
  EXPECT_EQ(m, 8);  // the zero row has no log-norm
}

}  // namespace
}  // namespace sdc
