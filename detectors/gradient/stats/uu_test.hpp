// The UU-test (Chasani & Likas 2022, "The UU-test for statistical modeling of
// unimodal data"), as the authors' public code runs it.
//
// It looks for a unimodal piecewise-linear approximation of the ECDF whose
// segments each hold uniformly distributed data (a uniform mixture model). On
// an interval [a, b] of the sorted distinct values:
//   1. If the data in [a, b] pass a Kolmogorov-Smirnov test of uniformity on
//      [min, max] (level alpha, 0.01), done: one segment.
//   2. Otherwise take the ECDF's convex hull: G = the lower hull's vertices but
//      the last (the convex part), L = the upper hull's vertices but the first
//      (the concave part). G u L is consistent if max G < min L; if not, each
//      place in the merged order where a G point is directly followed by an L
//      point gives a candidate: the G points up to it, then the L points after.
//   3. For each candidate in order: the convex points must be "sufficient"
//      (below), the concave points too; then recurse on the gap between the
//      last G point and the first L point. The first candidate that succeeds
//      makes [a, b] unimodal; if none does, the data are multimodal.
// Sufficiency of a chain of points p_0 < ... < p_m: if [p_0, p_m] is uniform,
// one segment. Else walk from p_0: extend to the next point when the data
// between pass the KS test; else search forward for a farther point that
// passes; else search backward, dropping accepted points until one passes. The
// chain fails if nothing passes.
//
// Ties: the authors' code works on the distinct values (MATLAB's intersect),
// so do we. KS p-values: exact for n <= 100 (Marsaglia, Tsang & Wang 2003),
// Kolmogorov's limit with Stephens' correction sqrt(n) + 0.12 + 0.11 / sqrt(n)
// above (MATLAB's kstest, which the authors call, differs only in how it
// approximates; decisions at 0.01 agree except within ~1e-3 of the level).
#pragma once
#include <cstdint>
#include <span>

namespace sdc::stats {

// Two-sided one-sample KS: P(D_n >= d) under the null.
double ks_p_value(double d, int64_t n);
// P(D_n < d) by Marsaglia, Tsang & Wang's matrix method, with their far-tail
// shortcut 1 - 2 exp(-(2.000071 + 0.331/sqrt(n) + 1.409/n) n d^2) when
// n d^2 > 7.24 (or > 3.76 with n > 99).
double ks_cdf_exact(double d, int64_t n);
// Kolmogorov's limiting survival function Q(t) = 2 sum (-1)^(k-1) exp(-2 k^2 t^2).
double kolmogorov_q(double t);

struct uu_result {
  bool unimodal = true;
  int segments = 0;      // uniform segments of the fitted model (0 if multimodal)
  int64_t ks_tests = 0;  // KS tests run
  int64_t n_distinct = 0;
};
uu_result uu_test(std::span<const double> x, double alpha = 0.01);

}  // namespace sdc::stats
