// Statistical tests on a sample of log gradient norms (000_60f7924e74842bcb.txt):
// the folding test of unimodality, the first Wasserstein distance between the
// two sides of its pivot (Algorithm 1), and the robust z-score baseline.
//
// Folding test (Siffer et al. 2018; the authors' R package Rfolding), d = 1:
//   pivot  s* = Cov(X, X^2) / (2 Var X)
//   Phi    = (1 + d)^2 Var|X - s*| / Var X = 4 Var|X - s*| / Var X
//   unimodal iff Phi >= 1 (the paper's rule, and Rfolding's folding.test);
//   p-value: the x in (0, 1] solving a(1 - x) - b ln x = |Phi - 1| sqrt(n) / (ln d + c)
//   with a = 0.4785, b = 0.1946, c = 2.0287 (Rfolding's folding.test.pvalue).
//   Variances use the n - 1 normalisation, as R's var/cov do.
#pragma once
#include <span>
#include <vector>

namespace sdc::stats {

struct folding_result {
  double phi = 1;       // folding statistic
  double pivot = 0;     // s*
  double p_value = 1;   // small: the distance of Phi from 1 is significant
  bool unimodal = true; // Phi >= 1
  int n = 0;
};
folding_result folding_test(std::span<const double> x);
// The p-value of a folding statistic for n observations in d dimensions.
double folding_p_value(double phi, int n, int d = 1);

// W1 between the empirical distributions of a and b (any sizes): the integral
// of |F_a - F_b|, evaluated exactly over the merged sorted sample. Inputs need
// not be sorted. O((n + m) log(n + m)).
double wasserstein1(std::span<const double> a, std::span<const double> b);
// Eq. (3) of 000 for equal sizes: (1/n) sum |a_(i) - b_(i)| over sorted samples.
double wasserstein1_equal_n(std::span<const double> a, std::span<const double> b);

// Algorithm 1's second stage: split x at `pivot` (left: <= pivot, right: >
// pivot) and return W1 between the two sides (0 when a side is empty).
double pivot_split_w1(std::span<const double> x, double pivot);

// Robust z-score of the largest value: (max - median) / (1.4826 MAD), the
// outlier check many training stacks run on gradient norms. Infinite when the
// MAD is 0 and the max differs from the median.
double robust_z_max(std::span<const double> x);

double median(std::vector<double> x);

}  // namespace sdc::stats
