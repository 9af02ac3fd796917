// Silverman's test of multimodality (Silverman 1981, "Using kernel density
// estimates to investigate multimodality").
//
// For a Gaussian kernel the number of modes of the density estimate
// f_h(t) = (1 / nh) sum K((t - x_i) / h) never increases with h. The critical
// bandwidth h_k is the smallest h at which f_h has at most k modes; a large h_k
// is evidence of more than k modes. Its significance comes from a smoothed
// bootstrap under the fitted k-modal density (Efron & Tibshirani's variance-
// preserving form):  y_i = m + (x_{I_i} - m + h_k e_i) / sqrt(1 + h_k^2 / s^2),
// I_i uniform on 1..n, e_i ~ N(0, 1), m and s^2 the sample mean and variance.
// p-value = the fraction of B bootstrap samples whose f_{h_k} has more than k
// modes (equivalently whose own critical bandwidth exceeds h_k).
//
// Evaluation. The fast path bins the sample linearly onto a grid of spacing
// h / 8 spanning [min - 7h, max + 7h] and convolves the bin weights with the
// kernel sampled on the grid and cut at 7h (relative error < 3e-11 from the
// cut). Modes are counted on the grid with hysteresis: a mode is a rise and then
// a fall, each larger than 1e-9 of the estimate's maximum, so rounding noise in
// flat tails is not a mode (an isolated point of n = 10^7 stands 1e-7 above
// them). The reference twin evaluates the exact sum at the same grid points,
// O(n) each. The critical bandwidth is bracketed by halving / doubling and then
// bisected geometrically to a relative width of 1e-4. Binning puts the
// binned h 0.2-0.4 % below the exact one, so the fast path finishes with exact
// sums (over the points within 7h of each grid point) from a bracket around
// the binned h: both paths give the same h to 1e-4 (a test). The data are
// scaled by a power of two first (exact), so values near the ends of fp64
// neither overflow the range nor the bootstrap's variance.
#pragma once
#include <cstdint>
#include <span>

namespace sdc::stats {

// Modes of the Gaussian kernel density estimate with bandwidth h; `sorted`
// ascending. Binned (fast) and exact (reference) evaluations on the same grid.
int kde_modes(std::span<const double> sorted, double h);
int kde_modes_exact(std::span<const double> sorted, double h);

// The smallest h (to relative 1e-4) at which the estimate has at most k modes;
// 0 when all values are equal. `exact` picks the reference evaluation.
double critical_bandwidth(std::span<const double> sorted, int k = 1, bool exact = false);

struct silverman_result {
  double h_crit = 0;    // critical bandwidth for k modes
  double p_value = 1;   // smoothed-bootstrap p-value
  int64_t exceed = 0;   // bootstrap samples with more than k modes at h_crit
  int64_t B = 0;
  int64_t n = 0;
};
// x need not be sorted. The bootstrap stream is seeded from `seed` and the
// sample's values, so one sample always gets the same p-value, whatever the
// thread that runs it.
silverman_result silverman_test(std::span<const double> x, int64_t B, uint64_t seed = 0, int k = 1);

}  // namespace sdc::stats
