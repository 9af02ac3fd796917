// 002_63547290c53d63ef.txt's consistency metrics of one data-parallel step
// across its R ranks, from each rank's loss and its gradient before the
// all-reduce:
//   loss dispersion:      std (population, over ranks) and range (max - min);
//   gradient-norm dispersion: mean, std and range of ||g_i||;
//   direction agreement:  mean pairwise cosine over the R (R - 1) / 2 pairs;
//   localization:         each rank's cosine to the sum of the others.
// consistency_metrics computes the cosines without gathering the gradients,
// as one extra all-reduce would: with u_i = g_i / ||g_i|| and S = sum_i u_i,
//   mean pairwise cosine = (||S||^2 - R) / (R (R - 1)),
//   cos(g_i, sum_{j != i} g_j / ||g_j||) = <u_i, S - u_i> / ||S - u_i||,
//   ||S - u_i||^2 = ||S||^2 - 2 <u_i, S> + 1.
// consistency_reference is its twin: every pair's cosine directly, and each
// rank against the explicit sum of the others' unit vectors (test: equal to
// rounding). Sums are in fp64. A zero or non-finite gradient makes the
// cosines NaN (no direction); norms and losses are reported as they are.
#pragma once
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace sdc {

// A statistic with no value (a cosine without a direction, a rank without a norm).
inline constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

struct consistency {
  double loss_std = 0, loss_range = 0;
  double norm_mean = 0, norm_std = 0, norm_range = 0;
  double cos_mean = 0;
  std::vector<double> norms;        // per rank
  std::vector<double> cos_to_rest;  // per rank
};

consistency consistency_metrics(std::span<const double> losses, const std::vector<std::span<const float>>& grads);
consistency consistency_reference(std::span<const double> losses, const std::vector<std::span<const float>>& grads);

// sum_i a_i b_i in fp64 over 8 independent partial sums (lane i mod 8, added
// in lane order at the end): the fast path's dot product; the reference twin
// sums in index order.
double dot_lanes(std::span<const float> a, std::span<const float> b);

// Robust z-scores over ranks, (x_i - median) / (1.4826 MAD); with MAD = 0 a
// value equal to the median scores 0 and any other +-inf. NaN stays NaN.
std::vector<double> robust_z_over_ranks(std::span<const double> x);

}  // namespace sdc
