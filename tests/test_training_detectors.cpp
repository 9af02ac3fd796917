// 002's consistency metrics, torch-free, against their direct twin (003's
// checks: test_silent_check.cpp).
#include <gtest/gtest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "detectors/consistency.hpp"

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

}  // namespace
}  // namespace sdc
