// 003's checks, torch-free, each test pinned to the original named beside it:
// the feature-value rule (torch_npu asd.py _MatmulSilentCheck._silent_check /
// _async_detect; MindSpore silent_detector.cc SilentDetector::CheckValue /
// CheckValueWithCoolDown), both strike policies and CheckSum schedules
// (strike_policy.hpp), SilentCheckV3 (aclnnSilentCheckV2.md; MindSpore
// ascend_silent_check.cc) and both CheckSums (checksum_kernel.cc / checksum.cc;
// torch_npu asd/checksum.py).
#include <gtest/gtest.h>

#include "checksum_twins.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "detectors/ascend/matmul_checksum.hpp"
#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "foundation/formats/format.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;

// _silent_check: thres = thres2 = val until none_zero_step >= 10 and avg != 0.
TEST(FeatureValue, WarmUpTakesEveryFiniteValueAndOnlyNanAlarms) {
  feature_value_state s;
  for (int i = 0; i < 9; ++i) {
    const auto st = s.observe(i == 4 ? 1e30 : 1.0);  // a huge value during warm-up: no alarm, averaged in
    EXPECT_TRUE(st.warming);
    EXPECT_FALSE(st.alarm);
    EXPECT_TRUE(st.accepted);
    EXPECT_EQ(st.t1, st.value);
  }
  EXPECT_TRUE(s.observe(NAN).alarm);  // math.isnan(val): an alarm even while warming up, not averaged
  EXPECT_EQ(s.nz(), 9);
  EXPECT_TRUE(s.observe(INFINITY).alarm);
}

// _silent_check's thresholds and band; _async_detect's pre_val = val after every
// value (CheckValueWithCoolDown: stat.pre_value = value), zeros included.
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
  EXPECT_EQ(s.nz(), 11);
  st = s.observe(2 * t1);  // above T_1 and far from pre = 5000: alarm, not averaged
  EXPECT_TRUE(st.alarm);
  EXPECT_EQ(st.pre, 2 * t1);  // pre is updated on an alarm too
  EXPECT_FALSE(s.observe(2 * t1).alarm);  // the same value again: |v - pre| = 0
  EXPECT_FALSE(s.observe(2.5 * t1).alarm);  // |v - pre| = 0.5 t1 < T_1 although v > T_1
  st = s.observe(0);                        // a zero is not judged, but it is the new pre
  EXPECT_TRUE(st.ignored);
  EXPECT_EQ(st.pre, 0);
  EXPECT_EQ(s.nz(), 11);
  EXPECT_TRUE(s.observe(2.5 * t1).alarm);  // |v - 0| > T_1 now: the zero reset pre
}

TEST(FeatureValue, ParametersAreValidated) {
  EXPECT_EQ(feature_value_params{}.invalid(), "");
  EXPECT_NE(feature_value_params({100, 1e6}).invalid(), "");  // upper_thresh1 must exceed upper_thresh2
  EXPECT_NE(feature_value_params({NAN, 100}).invalid(), "");
  strike_params p;
  p.cooldown = -1;
  EXPECT_NE(p.invalid(), "");
  EXPECT_THROW(parse_asd_variant("ms"), std::exception);
}

strike_params strikes(double cooldown, int64_t n, double window, bool checksum = false) {
  strike_params p;
  p.cooldown = cooldown, p.strikes_num = n, p.strikes_window = window, p.with_checksum = checksum;
  return p;
}

// _abnormal_process: counted past the cooldown; strikes_num counted ones strike out.
TEST(TorchNpuStrikes, CooldownCountsAndTheLatestStruckOneIsNotReused) {
  rank_strikes r(asd_variant::torch_npu, strikes(300, 3, 480 * 60));
  EXPECT_TRUE(r.alarm(0, false).counted);
  EXPECT_FALSE(r.alarm(100, false).counted);  // within the cooldown of the counted one at 0
  EXPECT_TRUE(r.alarm(300, false).counted);   // >= cooldown
  EXPECT_TRUE(r.alarm(700, false).struck_out);
  EXPECT_FALSE(r.alarm(1000, false).struck_out);  // 700 (struck) and nothing unstruck before it
  EXPECT_FALSE(r.alarm(1300, false).struck_out);
  EXPECT_TRUE(r.alarm(1600, false).struck_out);  // 1300 and 1000
}

// _abnormal_process with strikes_num = 2: the latest counted entry joins even if
// struck, and the window is measured to the entry where the walk stopped.
TEST(TorchNpuStrikes, TwoStrikesReuseTheLatestAndMeasureTheWindowWhereTheWalkStops) {
  rank_strikes r(asd_variant::torch_npu, strikes(300, 2, 1000));
  EXPECT_FALSE(r.alarm(0, false).struck_out);
  EXPECT_TRUE(r.alarm(400, false).struck_out);
  EXPECT_TRUE(r.alarm(800, false).struck_out);   // with 400, already struck
  EXPECT_FALSE(r.alarm(1500, false).struck_out);  // the walk stops at 400: 1100 > window
  rank_strikes w(asd_variant::torch_npu, strikes(0, 3, 1000));
  w.alarm(0, false), w.alarm(500, false);
  EXPECT_FALSE(w.alarm(1600, false).struck_out);  // the oldest of the three is 1600 old
}

// CheckValueWithCoolDown: strict prev + cooldown < t; ProcessStrike: the window
// drops strikes only while the queue holds more than strikes_num.
TEST(MindSporeStrikes, StrictCooldownAndAWindowOnlyBeyondStrikesNum) {
  rank_strikes r(asd_variant::mindspore, strikes(300, 3, 1000, true));
  EXPECT_TRUE(r.alarm(0, false).counted);
  EXPECT_FALSE(r.alarm(300, false).counted);  // 0 + 300 < 300 is false
  EXPECT_TRUE(r.alarm(10000, false).counted);
  EXPECT_FALSE(r.pending());
  r.alarm(20000, false);
  EXPECT_TRUE(r.pending());  // three strikes 20000 s apart, far beyond the 1000 s window
  rank_strikes quiet(asd_variant::mindspore, strikes(0, 1, 1000, true));
  EXPECT_TRUE(quiet.alarm(5, true).counted);  // a strike while the CheckSum runs: not counted toward it
  EXPECT_FALSE(quiet.pending());
  rank_strikes bare(asd_variant::mindspore, strikes(0, 1, 1000, false));
  bare.alarm(5, false);
  EXPECT_FALSE(bare.pending());  // without the CheckSum nothing is queued
}

// DetectStrikeout (mindspore) keeps strikes queued through checksum_cooldown;
// _tcp_comm_checksum_state (torch_npu) resets the state and loses them.
TEST(ChecksumClock, MindSporeWaitsAndTorchNpuDrops) {
  for (auto v : {asd_variant::mindspore, asd_variant::torch_npu}) {
    strike_params p = strikes(300, 1, 28800, true);
    p.checksum_cooldown = 600, p.poll = 10;
    std::vector<rank_strikes> ranks(2, rank_strikes(v, p));
    checksum_clock clock(v, p);
    clock.reset(0);
    ranks[1].alarm(3, false);
    EXPECT_FALSE(clock.poll(5, ranks));   // the first pass is at 10
    EXPECT_TRUE(clock.poll(12, ranks));   // starts at 10
    EXPECT_TRUE(clock.running(11));
    EXPECT_TRUE(clock.running(310));
    EXPECT_FALSE(clock.running(311));
    ranks[0].alarm(400, false);
    EXPECT_FALSE(clock.poll(605, ranks));  // within checksum_cooldown of 10
    const bool later = clock.poll(700, ranks);
    if (v == asd_variant::mindspore) EXPECT_TRUE(later);  // the queued strike starts it at 610
    else EXPECT_FALSE(later);                             // reset at the pass after 400: lost
  }
}

// aclnnSilentCheckV2.md: step 0 judges against avg (the first value, copied in by
// ExecuteCheck's InplaceCopy); then against avg / (1 - beta1^step).
TEST(SilentCheckV3, FirstValueBiasCorrectionAndLevels) {
  silent_check_v3_state s;  // 1e6, 1e4, beta1 0.99
  auto st = s.observe(4);
  EXPECT_EQ(st.level, 0);
  EXPECT_EQ(st.bound, 4);
  st = s.observe(1e7);  // bound 4 / (1 - 0.99) = 400: 1e7 > 400 x 1e4 = 4e6, < 4e8
  EXPECT_NEAR(st.bound, 400, 1e-3);
  EXPECT_EQ(st.level, 2);
  silent_check_v3_state t;
  t.observe(4);
  EXPECT_EQ(t.observe(1e9).level, 1);  // > 4e8
  silent_check_v3_state u;
  for (int i = 0; i < 2000; ++i) u.observe(1);
  EXPECT_EQ(u.observe(2e6).level, 1);  // the correction has decayed: bound ~ 1
  EXPECT_EQ(u.observe(NAN).level, 1);
  EXPECT_EQ(u.observe(1e30).level, 0);  // the average took the NaN (updated at every level): blind since
}

// The originals hold the value and the average in the gradient's dtype: in
// bf16 (8 significant bits, a spacing of 2^-7 at 1) the update of an average
// of 1 by a value of 1.3 (held as 1.296875) gives 1.00297, which rounds back
// to 1: absorbed; in fp32 it is kept (1.003).
TEST(SilentCheckV3, ABf16StateAbsorbsSmallUpdates) {
  silent_check_v3_params p;
  p.bf16_state = true;
  silent_check_v3_state b(p), f;
  b.observe(1), f.observe(1);
  EXPECT_EQ(b.observe(1.3).avg, 1.0);
  EXPECT_NEAR(f.observe(1.3).avg, 1.003, 1e-6);
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

constexpr checksum_variant both[] = {checksum_variant::mindspore, checksum_variant::torch_npu};

TEST(MatmulChecksum, CleanPassesAndAnExponentFlipFailsOnItsRow) {
  product p = random_product(16, 64, 48, 7);
  for (auto v : both) EXPECT_FALSE(matmul_checksum(p.ops(), v).failed);
  p.c[size_t(5 * 48 + 9)] *= 0x1p16f;  // an exponent flip's worth
  for (auto v : both) {
    const auto r = matmul_checksum(p.ops(), v);
    EXPECT_TRUE(r.failed);
    EXPECT_EQ(r.worst_row, 5);
  }
  EXPECT_TRUE(matmul_checksum(p.ops(), checksum_variant::torch_npu).rows_flagged);
  p = random_product(16, 64, 48, 7);
  p.c[size_t(5 * 48 + 9)] = std::nextafter(p.c[size_t(5 * 48 + 9)], INFINITY);  // a last-bit change is below the bound
  for (auto v : both) EXPECT_FALSE(matmul_checksum(p.ops(), v).failed);
}

// CalculateErrorTotal: GreaterEqualScalar(min ratio, 5); checksum.py: min ratio > 5.
TEST(MatmulChecksum, ARatioOfExactlyFiveIsSpikyOnlyForMindSpore) {
  product p{1, 1, 5, {1.0f}, {5, 0, 0, 0, 0.5f}, {5, 0, 0, 0, 0}};  // the fault zeroed C[4]: max 5, mean 1
  const auto ms = matmul_checksum(p.ops(), checksum_variant::mindspore);
  EXPECT_TRUE(ms.failed);
  EXPECT_NEAR(ms.worst_ratio, 0.5 / (5 * std::sqrt(5.0) / 256), 0.05);  // max bound, rounded to bf16
  const auto tn = matmul_checksum(p.ops(), checksum_variant::torch_npu);
  EXPECT_EQ(tn.worst_ratio, 0.5 / (5 * (1.0 / 256) * 5));  // mean bound x 5, exact in bf16
  EXPECT_TRUE(tn.failed);  // the recomputed row's mean |C| is 1.1, not 1
}

TEST(MatmulChecksum, SpikyRowsFailMindSporeAndTorchNpuRecomputesTheSameProduct) {
  // One row, n = 10000: B = 1 + 2^-8 + 2^-16 everywhere (rounded up to 1 + 2^-7 in
  // bf16 C) but one spike of 8, so max / mean ~ 8 > 5: bound = 8 2^-8 sqrt(n) =
  // 3.1 (x5 = 15.6) while the rounding adds n (2^-8 - 2^-16) ~ 38.9 to sum C.
  product p{1, 1, 10000, {1.0f}, {}, {}};
  for (int j = 0; j < 10000; ++j) p.b.push_back(j == 0 ? 8.0f : 1.0f + 0x1p-8f + 0x1p-16f);
  for (float x : p.b) p.c.push_back(float(round_to(bf16(), x)));
  EXPECT_TRUE(matmul_checksum(p.ops(), checksum_variant::mindspore).failed);  // the bound's false alarm on a clean product
  const auto tn = matmul_checksum(p.ops(), checksum_variant::torch_npu);
  EXPECT_TRUE(tn.rows_flagged);
  EXPECT_FALSE(tn.failed);  // the recomputed product has the same row means
}

// checksum_kernel.cc reduces error - bound with a max: NaN fails (NOT < 1e-20);
// checksum.py compares per row: NaN flags nothing.
TEST(MatmulChecksum, NanFailsMindSporeAndPassesTorchNpu) {
  product p = random_product(4, 16, 8, 3);
  p.c[9] = NAN;
  EXPECT_TRUE(matmul_checksum(p.ops(), checksum_variant::mindspore).failed);
  const auto tn = matmul_checksum(p.ops(), checksum_variant::torch_npu);
  EXPECT_FALSE(tn.rows_flagged);
  EXPECT_FALSE(tn.failed);
}

// The fast twin (rows interleaved) against the reference, bit for bit: every
// row's statistics and both verdicts, on shapes around the 8-row blocks, with
// NaN, infinities, signed zeros and a spike; and a product torch_npu recomputes.
TEST(MatmulChecksum, FastTwinEqualsTheReferenceBitForBit) {
  uint64_t seed = 11;
  for (const auto& [m, k, n] :
       {std::array<int64_t, 3>{1, 1, 1}, {7, 9, 15}, {8, 8, 8}, {17, 33, 5}, {24, 3, 40}, {3, 70, 1}}) {
    for (int edit = 0; edit < 4; ++edit) {
      product p = random_product(m, k, n, seed++);
      if (edit == 1) p.c[size_t(m * n / 2)] = NAN, p.c[0] = -0.0f;
      if (edit == 2) p.c[size_t(m * n - 1)] = -INFINITY, p.b[0] = INFINITY;
      if (edit == 3) p.c[size_t(m * n / 3)] *= 0x1p20f;  // rows_flagged: torch_npu recomputes
      for (bool bf : {true, false}) {
        matmul_operands g = p.ops();
        g.bf16 = bf;
        testing::expect_twins_equal(g, ::testing::Message() << m << "x" << k << "x" << n << " edit " << edit << " bf16 " << bf);
      }
    }
  }
}

}  // namespace
}  // namespace sdc
