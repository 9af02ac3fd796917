#include "detectors/gradient/stats/dip.hpp"

#include "detectors/gradient/stats/ecdf_hull.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace sdc::stats {
namespace {

struct dip_row {
  int64_t n;
  std::array<double, 26> q;
};
constexpr dip_row k_dip_rows[] = {
#include "detectors/gradient/stats/dip_table.inc"
};
constexpr int k_dip_nrows = int(std::size(k_dip_rows));
constexpr std::array<double, 26> k_dip_probs = {0,     0.01,  0.02,   0.05,   0.1,    0.2,     0.3,    0.4,    0.5,
                                                0.6,   0.7,   0.8,    0.9,    0.95,   0.98,    0.99,   0.995,  0.998,
                                                0.999, 0.9995, 0.9998, 0.9999, 0.99995, 0.99998, 0.99999, 1};

// The hull's value (in the index scale) at the abscissa of point v. On a
// vertical segment (tied x) the minorant takes its lower end, the majorant its
// upper end.
double hull_at(std::span<const double> x, const std::vector<int64_t>& verts, int64_t v, bool lower) {
  size_t k = size_t(std::upper_bound(verts.begin(), verts.end(), v) - verts.begin());
  k = std::clamp<size_t>(k, 1, verts.size() - 1) - 1;
  const int64_t a = verts[k], b = verts[k + 1];
  if (v == a) return double(a);
  if (v == b) return double(b);
  const double dx = x[size_t(b)] - x[size_t(a)];
  if (dx == 0) return double(lower ? a : b);
  return double(a) + (x[size_t(v)] - x[size_t(a)]) * double(b - a) / dx;
}

// Largest ECDF-to-hull distance (in observations) over the hull segments whose
// both ends lie in [from, to]; 1 per segment at least (the jump itself).
double hull_distance(std::span<const double> x, const std::vector<int64_t>& verts, int64_t from, int64_t to,
                     bool lower) {
  double best = 0;
  for (size_t k = 0; k + 1 < verts.size(); ++k) {
    const int64_t a = verts[k], b = verts[k + 1];
    if (a < from || b > to) continue;
    double seg = 1;
    const double dx = x[size_t(b)] - x[size_t(a)];
    if (b - a > 1 && dx != 0) {
      const double slope = double(b - a) / dx;
      for (int64_t j = a; j <= b; ++j) {
        const double rise = (x[size_t(j)] - x[size_t(a)]) * slope;
        // minorant: upper corner (j + 1) above a + rise; majorant: a + 1 + rise above lower corner j
        const double t = lower ? double(j - a + 1) - rise : rise - double(j - a - 1);
        seg = std::max(seg, t);
      }
    }
    best = std::max(best, seg);
  }
  return best;
}

}  // namespace

dip_result dip_sorted(std::span<const double> x) {
  dip_result r;
  r.n = int64_t(x.size());
  if (x.empty()) return r;
  int64_t low = 0, high = r.n - 1;
  double D = 1;
  std::vector<int64_t> gcm, lcm;
  while (x[size_t(high)] > x[size_t(low)]) {
    ++r.steps;
    ecdf_hull(x, low, high, true, gcm);
    ecdf_hull(x, low, high, false, lcm);
    // Largest L - G over the vertices of both, walked left to right; the last
    // maximum wins.
    double d = 0;
    bool at_gcm = true;
    int64_t where = low;
    size_t ig = 0, il = 0;
    while (ig < gcm.size() || il < lcm.size()) {
      const bool take_g = il == lcm.size() || (ig < gcm.size() && gcm[ig] <= lcm[il]);
      const int64_t v = take_g ? gcm[ig++] : lcm[il++];
      const double gap = take_g ? hull_at(x, lcm, v, false) + 1 - double(v) : double(v) + 1 - hull_at(x, gcm, v, true);
      if (gap >= d) d = gap, at_gcm = take_g, where = v;
    }
    if (d < D) break;
    int64_t new_low, new_high;
    if (at_gcm) {
      new_low = where;
      new_high = *std::lower_bound(lcm.begin(), lcm.end(), where);
    } else {
      new_high = where;
      new_low = *(std::upper_bound(gcm.begin(), gcm.end(), where) - 1);
    }
    D = std::max({D, hull_distance(x, gcm, low, new_low, true), hull_distance(x, lcm, new_high, high, false)});
    if (new_low == low && new_high == high) break;
    low = new_low, high = new_high;
  }
  r.dip = D / (2.0 * double(r.n));
  r.mode_lo = x[size_t(low)];
  r.mode_hi = x[size_t(high)];
  return r;
}

dip_result dip_test(std::span<const double> x) {
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  dip_result r = dip_sorted(s);
  r.p_value = dip_p_value(r.dip, r.n);
  return r;
}

double dip_p_value(double dip, int64_t n) {
  if (n <= 3) return 1;
  // Rows i0 <= i1 around n; beyond the table, its last row.
  int i1 = 0;
  while (i1 < k_dip_nrows && k_dip_rows[i1].n < n) ++i1;
  int i0 = i1;
  double f = 0;
  if (i1 == k_dip_nrows) {
    i0 = i1 = k_dip_nrows - 1;
  } else if (k_dip_rows[i1].n > n) {
    i0 = i1 - 1;
    f = double(n - k_dip_rows[i0].n) / double(k_dip_rows[i1].n - k_dip_rows[i0].n);
  }
  std::array<double, 26> y{};
  for (size_t j = 0; j < y.size(); ++j) {
    const double y0 = std::sqrt(double(k_dip_rows[i0].n)) * k_dip_rows[i0].q[j];
    const double y1 = std::sqrt(double(k_dip_rows[i1].n)) * k_dip_rows[i1].q[j];
    y[j] = y0 + f * (y1 - y0);
  }
  // Collapse tied abscissae to the mean probability (R's approx, ties = mean).
  std::vector<double> xs, ps;
  for (size_t j = 0; j < y.size();) {
    size_t k = j;
    double sum = 0;
    while (k < y.size() && y[k] == y[j]) sum += k_dip_probs[k], ++k;
    xs.push_back(y[j]);
    ps.push_back(sum / double(k - j));
    j = k;
  }
  const double sd = std::sqrt(double(n)) * dip;
  double prob;
  if (sd <= xs.front()) {
    prob = ps.front();
  } else if (sd >= xs.back()) {
    prob = ps.back();
  } else {
    const size_t k = size_t(std::upper_bound(xs.begin(), xs.end(), sd) - xs.begin());
    prob = ps[k - 1] + (sd - xs[k - 1]) * (ps[k] - ps[k - 1]) / (xs[k] - xs[k - 1]);
  }
  return 1 - prob;
}

int64_t dip_table_view::n_at(int row) const { return k_dip_rows[row].n; }
double dip_table_view::quantile(int row, int col) const { return k_dip_rows[row].q[size_t(col)]; }
dip_table_view dip_table() { return {std::span<const double>(k_dip_probs), k_dip_nrows}; }

}  // namespace sdc::stats
