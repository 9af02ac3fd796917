// Hartigan's dip test of unimodality (Hartigan & Hartigan 1985; algorithm AS 217
// with the corrections of Maechler's R package diptest).
//
// The dip is the sup distance between the empirical CDF and the closest
// unimodal CDF. The algorithm keeps a modal interval [low, high] (indices into
// the sorted sample), starting with the whole sample:
//   1. G = the greatest convex minorant of the ECDF on [low, high] (the lower
//      hull of its lower corners), L = the least concave majorant (the upper hull
//      of its upper corners).
//   2. d = max (L - G), attained at a vertex of one of them. If d < D, stop.
//   3. If the maximum is at a vertex g of G, the new interval is [g, the first
//      vertex of L at or after g]; at a vertex l of L, [the last vertex of G at or
//      before l, l]. D = max(D, the largest ECDF-to-G distance on [low, new low],
//      the largest ECDF-to-L distance on [new high, high]).
//   4. Stop if the interval did not change, else go to 1.
// Distances are counted in observations; dip = D / (2n). D starts at 1, so the
// smallest dip is 1/(2n) (Maechler's "the dip of a unimodal sample is 1/(2n)",
// not AS 217's 0). A tied group at the end of G or the start of L (a vertical
// hull segment) is a point mass at the mode and adds no distance.
//
// The hulls are rebuilt on [low, high] at every step (monotone chain), so one
// step costs O(high - low); the intervals shrink, and in practice a handful of
// steps is enough: O(n log n) with the sort.
//
// p-value: Maechler's table of dip quantiles under the uniform (the least
// favourable unimodal law), interpolated linearly in sqrt(n) * dip between the
// two tabled sample sizes around n, then linearly in the probability (R's
// approx with ties averaged, values outside the table clamped). Above the
// largest tabled n (72000) that n's row is used as the asymptotic one. For
// n <= 3 the p-value is 1.
#pragma once
#include <cstdint>
#include <span>

namespace sdc::stats {

struct dip_result {
  double dip = 0;        // in [1/(2n), 1/4]
  double p_value = 1;
  double mode_lo = 0;    // the modal interval of the closest unimodal CDF
  double mode_hi = 0;
  int64_t n = 0;
  int steps = 0;         // iterations of the algorithm above
};

// The dip of a sorted sample (ascending; ties allowed).
dip_result dip_sorted(std::span<const double> sorted);
// The dip and its p-value; x need not be sorted.
dip_result dip_test(std::span<const double> x);
// P(dip of n uniform observations >= dip), from the quantile table.
double dip_p_value(double dip, int64_t n);

// The quantile table itself (for tests and documentation).
struct dip_table_view {
  std::span<const double> probs;  // 26 probabilities, 0 .. 1
  int rows = 0;
  int64_t n_at(int row) const;
  double quantile(int row, int col) const;
};
dip_table_view dip_table();

}  // namespace sdc::stats
