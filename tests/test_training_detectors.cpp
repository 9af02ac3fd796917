// Training-level detectors, torch-free: 003's feature-value detector, strikes
// and older silent check pinned to the originals' formulas and quirks on
// hand-made sequences; the matmul CheckSum on hand-made products; 002's
// consistency metrics against their direct twin.
#include <gtest/gtest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "detectors/consistency.hpp"
#include "detectors/matmul_checksum.hpp"
#include "detectors/silent_check.hpp"
#include "harness/formats/format.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;

TEST(FeatureValue, WarmUpTakesEveryFiniteValueAndOnlyNanAlarms) {
  feature_value_state s;
  for (int i = 0; i < 9; ++i) {
    const auto st = s.observe(i == 4 ? 1e30 : 1.0);  // a huge value during warm-up: no alarm, averaged in
    EXPECT_TRUE(st.warming);
    EXPECT_FALSE(st.alarm);
    EXPECT_TRUE(st.accepted);
    EXPECT_EQ(st.t1, st.value);
  }
  EXPECT_TRUE(s.observe(NAN).alarm);  // NaN alarms even while warming up, and does not count
  EXPECT_EQ(s.nz(), 9);
  EXPECT_TRUE(s.observe(INFINITY).alarm);
}

TEST(FeatureValue, ThresholdsBandPreviousValueAndZeros) {
  feature_value_state s;  // alpha_1 = 1e6, alpha_2 = 100, beta = 0.99, 10 warm-up values
  double avg = 0;
  for (int i = 0; i < 10; ++i) s.observe(1.0), avg = 0.99 * avg + (1 - 0.99) * 1.0;
  const double debias = 1 - std::pow(0.99, 10);
  auto st = s.observe(50);  // within T_2: averaged
  EXPECT_FALSE(st.warming);
  EXPECT_NEAR(st.t1, avg * 1e6 / debias, 1e-9);
  EXPECT_NEAR(st.t2, avg * 100 / debias, 1e-12);
  EXPECT_TRUE(st.accepted);
  avg = 0.99 * avg + (1 - 0.99) * 50;
  EXPECT_NEAR(s.avg(), avg, 1e-15);
  const double t1 = avg * 1e6 / (1 - std::pow(0.99, 11));
  st = s.observe(5000);  // between T_2 (~568) and T_1 (~5.7e6): kept out of the average, no alarm
  EXPECT_FALSE(st.alarm);
  EXPECT_FALSE(st.accepted);
  EXPECT_EQ(s.avg(), avg);
  EXPECT_EQ(s.nz(), 11);
  st = s.observe(2 * t1);  // above T_1 and far from pre = 5000: alarm, not averaged
  EXPECT_TRUE(st.alarm);
  EXPECT_FALSE(st.accepted);
  EXPECT_EQ(st.pre, 2 * t1);  // pre is updated on an alarm too
  st = s.observe(2 * t1);     // the same value again: |v - pre| = 0, no alarm
  EXPECT_FALSE(st.alarm);
  st = s.observe(0);  // zeros are ignored: nothing changes
  EXPECT_TRUE(st.ignored);
  EXPECT_EQ(st.pre, 2 * t1);
  EXPECT_EQ(s.nz(), 11);
  st = s.observe(2.5 * t1);  // |v - pre| = 0.5 t1 < T_1: no alarm although v > T_1
  EXPECT_FALSE(st.alarm);
}

TEST(FeatureValue, ParametersAreValidated) {
  EXPECT_EQ(feature_value_params{}.invalid(), "");
  EXPECT_NE(feature_value_params({100, 1e6}).invalid(), "");  // upper_thresh1 must exceed upper_thresh2
  EXPECT_NE(feature_value_params({NAN, 100}).invalid(), "");
  feature_value_params p;
  p.warmup = 0;
  EXPECT_NE(p.invalid(), "");
  EXPECT_NE(strike_params({-1, 3, 10}).invalid(), "");
}

TEST(Strikes, CooldownCountsAndStrikeOutClears) {
  strike_counter c({300, 3, 480 * 60});
  EXPECT_TRUE(c.alarm(0).counted);
  EXPECT_FALSE(c.alarm(100).counted);  // within the cooldown
  auto r = c.alarm(300);
  EXPECT_TRUE(r.counted);
  EXPECT_EQ(r.in_window, 2);
  r = c.alarm(700);
  EXPECT_TRUE(r.struck_out);
  r = c.alarm(1000);  // counting starts again after a strike-out
  EXPECT_TRUE(r.counted);
  EXPECT_EQ(r.in_window, 1);
}

TEST(Strikes, TheWindowForgetsOldStrikes) {
  strike_counter c({0, 3, 1000});
  c.alarm(0), c.alarm(500);
  const auto r = c.alarm(1600);  // 0 and 500 are older than 1600 - 1000
  EXPECT_TRUE(r.counted);
  EXPECT_EQ(r.in_window, 1);
  EXPECT_FALSE(r.struck_out);
  strike_counter one({60, 1, 480 * 60});  // 003's demo: strikes_num 1
  EXPECT_TRUE(one.alarm(0).struck_out);
  EXPECT_FALSE(one.alarm(30).struck_out);
  EXPECT_TRUE(one.alarm(60).struck_out);
}

TEST(SilentCheckV1, AbsoluteAndJumpLevels) {
  silent_check_v1_state s;  // (1e6, 1e5, 1e4, 5e3), jumps after 7 values
  EXPECT_EQ(s.observe(1).level, 0);
  EXPECT_EQ(s.observe(2e5).level, 2);  // absolute 1e4 < v; the jump is not judged yet
  for (int i = 0; i < 5; ++i) s.observe(1);
  auto st = s.observe(2e3);  // count 7: jump (2e3 - 1) / 1 < 5e3
  EXPECT_EQ(st.level, 0);
  EXPECT_EQ(st.min, 1);
  EXPECT_EQ(st.max, 2e5);
  s.observe(1);
  EXPECT_EQ(s.observe(6e3).level, 2);  // jump 5999 > 5e3
  s.observe(0.01);
  EXPECT_EQ(s.observe(2e3).level, 1);  // jump ~2e5 > 1e5, v itself small
  EXPECT_EQ(s.observe(2e6).level, 1);  // absolute
  EXPECT_EQ(s.observe(NAN).level, 1);
}

// C = A B rounded to bf16, from bf16-representable inputs.
struct product {
  int64_t m, k, n;
  std::vector<float> a, b, c;
  matmul_operands ops() const { return {m, k, n, a.data(), b.data(), c.data(), true}; }
};

product random_product(int64_t m, int64_t k, int64_t n, uint64_t seed) {
  boost::random::mt19937_64 g(seed);
  boost::random::normal_distribution<double> z;
  product p{m, k, n, {}, {}, {}};
  for (int64_t i = 0; i < m * k; ++i) p.a.push_back(float(round_to(bf16(), z(g))));
  for (int64_t i = 0; i < k * n; ++i) p.b.push_back(float(round_to(bf16(), z(g))));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) s += double(p.a[size_t(i * k + q)]) * p.b[size_t(q * n + j)];
      p.c.push_back(float(round_to(bf16(), s)));
    }
  return p;
}

TEST(MatmulChecksum, CleanPassesAndAnExponentFlipFailsOnItsRow) {
  product p = random_product(16, 64, 48, 7);
  for (auto v : {checksum_variant::mindspore, checksum_variant::torch_npu}) EXPECT_FALSE(matmul_checksum(p.ops(), v).failed);
  p.c[size_t(5 * 48 + 9)] *= 0x1p16f;  // an exponent flip's worth
  for (auto v : {checksum_variant::mindspore, checksum_variant::torch_npu}) {
    const auto r = matmul_checksum(p.ops(), v);
    EXPECT_TRUE(r.failed);
    EXPECT_EQ(r.worst_row, 5);
  }
  const auto r = matmul_checksum(p.ops(), checksum_variant::torch_npu);
  EXPECT_TRUE(r.recomputed);
  EXPECT_FALSE(r.recompute_failed);
  p = random_product(16, 64, 48, 7);
  p.c[size_t(5 * 48 + 9)] = std::nextafter(p.c[size_t(5 * 48 + 9)], INFINITY);  // a last-bit change is below the bound
  EXPECT_FALSE(matmul_checksum(p.ops(), checksum_variant::mindspore).failed);
}

TEST(MatmulChecksum, SpikyRowsUseTheMaxBoundWhichTorchNpuRecomputesBeforeBlaming) {
  // One row, n = 10000: B = 1 + 2^-8 + 2^-16 everywhere (rounded up to 1 + 2^-7 in
  // bf16 C) but one spike of 8, so max / mean ~ 8 > 5: bound = 8 2^-8 sqrt(n) =
  // 3.1 (x5 = 15.6) while the rounding adds n (2^-8 - 2^-16) ~ 38.9 to sum C.
  product p{1, 1, 10000, {1.0f}, {}, {}};
  for (int j = 0; j < 10000; ++j) p.b.push_back(j == 0 ? 8.0f : 1.0f + 0x1p-8f + 0x1p-16f);
  for (float x : p.b) p.c.push_back(float(round_to(bf16(), x)));
  const auto ms = matmul_checksum(p.ops(), checksum_variant::mindspore);
  EXPECT_TRUE(ms.failed);  // the bound's false alarm on a clean product
  EXPECT_NEAR(ms.worst_ratio, (10000 - 1) * (0x1p-8 - 0x1p-16) / (8 * 0x1p-8 * 100), 0.1);  // fp32 sums drop the 2^-16s
  const auto tn = matmul_checksum(p.ops(), checksum_variant::torch_npu);
  EXPECT_TRUE(tn.recomputed);
  EXPECT_TRUE(tn.recompute_failed);  // the clean product fails too: not blamed
  EXPECT_FALSE(tn.failed);
}

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
