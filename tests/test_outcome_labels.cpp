// The outcome-label rule (workloads/training/outcome_labels.hpp) on synthetic
// trajectories whose label is known by construction: the bands from clean
// runs, each label's defining shape, the order of precedence, and the
// smoothing and neighbourhood that make a band from few runs usable.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "workloads/training/outcome_labels.hpp"

namespace {

using namespace sdc;
using namespace sdc::train;

// Four clean runs of H steps: a decaying loss plus per-run batch noise of
// amplitude 0.05 (a fixed pattern, so the bands are known), validation
// losses 2.00, 2.01, 2.02, 2.03.
loss_bands clean_bands(size_t h) {
  std::vector<std::vector<double>> runs(4);
  for (size_t r = 0; r < 4; ++r)
    for (size_t k = 0; k < h; ++k) runs[r].push_back(3.0 - 0.01 * double(k) + 0.05 * std::sin(double(3 * k + 7 * r)));
  return bands_of(runs, {2.00, 2.01, 2.02, 2.03});
}

std::vector<double> twin_of(size_t h) {
  std::vector<double> t;
  for (size_t k = 0; k < h; ++k) t.push_back(3.0 - 0.01 * double(k));
  return t;
}

TEST(OutcomeLabels, BandsAreNinetyNinthPercentilesOfCleanPairs) {
  const loss_bands b = clean_bands(30);
  EXPECT_EQ(b.pairs, 6);
  EXPECT_NEAR(b.val, 0.03, 1e-12);  // the largest of six differences: p99 by nearest rank
  ASSERT_EQ(b.raw.size(), 30u);
  for (size_t k = 0; k < 30; ++k) {
    EXPECT_GT(b.raw[k], 0.0);
    EXPECT_LE(b.raw[k], 0.1 + 1e-12);       // two runs' noise at most 2 x 0.05 apart
    EXPECT_LT(b.smooth[k], b.raw[k] + 1e-12);  // the trailing mean narrows it
  }
}

TEST(OutcomeLabels, SmoothedIsTheTrailingMean) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const auto s = smoothed(v, 2);
  EXPECT_DOUBLE_EQ(s[0], 1.0);
  EXPECT_DOUBLE_EQ(s[1], 1.5);
  EXPECT_DOUBLE_EQ(s[4], 4.5);
}

TEST(OutcomeLabels, EachShapeGetsItsLabel) {
  const size_t h = 40;
  const loss_bands b = clean_bands(h);
  const auto twin = twin_of(h);
  auto with = [&](auto f) {
    auto v = twin;
    for (size_t k = 0; k < h; ++k) v[k] += f(k);
    return v;
  };
  // Identical: masked. Small noise inside the band: still masked.
  EXPECT_EQ(label_of(twin, twin, 2.0, 2.0, true, b).label, trajectory_label::masked);
  EXPECT_EQ(label_of(with([](size_t k) { return 0.01 * std::sin(double(k)); }), twin, 2.005, 2.0, true, b).label,
            trajectory_label::masked);
  // A one-step jump far above the band, then back: spike_and_recover.
  const auto spike = with([](size_t k) { return k == 3 ? 2.0 : 0.0; });
  const labelled s = label_of(spike, twin, 2.0, 2.0, true, b);
  EXPECT_EQ(s.label, trajectory_label::spike_and_recover);
  EXPECT_GT(s.spike_peak, 1.0);
  EXPECT_LE(s.end_excess, 1.0);
  // The same jump, and the loss stays 0.5 higher: spike_and_degrade.
  EXPECT_EQ(label_of(with([](size_t k) { return k == 3 ? 2.0 : k > 3 ? 0.5 : 0.0; }), twin, 2.0, 2.0, true, b).label,
            trajectory_label::spike_and_degrade);
  // The spike recovers in training loss but the held-out loss is worse: degrade too.
  EXPECT_EQ(label_of(spike, twin, 2.5, 2.0, true, b).label, trajectory_label::spike_and_degrade);
  // No step jumps out of the raw band, but the loss creeps up until its
  // smoothed excess leaves the (narrower) smoothed band: gradual_drift.
  const labelled d = label_of(with([](size_t k) { return 0.002 * double(k); }), twin, 2.0, 2.0, true, b);
  EXPECT_EQ(d.label, trajectory_label::gradual_drift) << d.spike_peak << " " << d.end_excess;
  EXPECT_LE(d.spike_peak, 1.0);
  // Training loss indistinguishable, held-out loss worse by more than its band: silent_degradation.
  EXPECT_EQ(label_of(twin, twin, 2.2, 2.0, true, b).label, trajectory_label::silent_degradation);
  // A better model is not degraded.
  EXPECT_EQ(label_of(with([](size_t k) { return -0.05 * double(k > 5); }), twin, 1.8, 2.0, true, b).label,
            trajectory_label::masked);
  // Anything non-finite wins over every other label.
  EXPECT_EQ(label_of(spike, twin, std::numeric_limits<double>::quiet_NaN(), 2.0, true, b).label, trajectory_label::non_finite);
  EXPECT_EQ(label_of(with([](size_t k) { return k == 5 ? INFINITY : 0.0; }), twin, 2.0, 2.0, true, b).label,
            trajectory_label::non_finite);
  EXPECT_EQ(label_of(twin, twin, 2.0, 2.0, false, b).label, trajectory_label::non_finite);
}

TEST(OutcomeLabels, RefusesMismatchedTrajectories) {
  const loss_bands b = clean_bands(10);
  EXPECT_THROW(label_of(twin_of(5), twin_of(6), 2, 2, true, b), std::invalid_argument);
  EXPECT_THROW(label_of(twin_of(11), twin_of(11), 2, 2, true, b), std::invalid_argument);
  EXPECT_THROW(bands_of({{1.0, 2.0}}, {1.0}), std::invalid_argument);
}

}  // namespace
