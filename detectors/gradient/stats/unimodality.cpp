#include "detectors/gradient/stats/unimodality.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sdc::stats {

namespace {

// Sample mean and (n - 1)-normalised variance, two-pass.
std::pair<double, double> mean_var(std::span<const double> x) {
  const double n = double(x.size());
  double m = 0;
  for (double v : x) m += v;
  m /= n;
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return {m, n > 1 ? s / (n - 1) : 0.0};
}

}  // namespace

double median(std::vector<double> x) {
  if (x.empty()) return std::nan("");
  const size_t h = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + long(h), x.end());
  if (x.size() % 2) return x[h];
  const double hi = x[h];
  return 0.5 * (*std::max_element(x.begin(), x.begin() + long(h)) + hi);
}

double folding_p_value(double phi, int n, int d) {
  constexpr double a = 0.4785, b = 0.1946, c = 2.0287;
  const double e = std::fabs(phi - 1) * std::sqrt(double(n)) / (std::log(double(d)) + c);
  if (!(e > 0)) return 1.0;
  // g(x) = a (1 - x) - b ln x - e decreases on (0, 1] from +inf to -e. Solved in
  // t = ln x, so p-values far below 1e-60 are right (to the last double above
  // the subnormals): h(t) = a (1 - e^t) - b t - e decreases, h(0) = -e < 0, and
  // h(t) >= -b t - e > 0 for t < -e / b: bisection on [-e / b - 1, 0].
  double lo = -e / b - 1, hi = 0;
  for (int i = 0; i < 400 && hi - lo > 1e-15 * std::max(1.0, std::fabs(lo)); ++i) {
    const double mid = lo + 0.5 * (hi - lo);
    (a * (1 - std::exp(mid)) - b * mid - e > 0 ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

folding_result folding_test(std::span<const double> x) {
  folding_result r;
  r.n = int(x.size());
  if (x.size() < 3) return r;
  const auto [m, var] = mean_var(x);
  if (!(var > 0)) return r;
  // Cov(X, X^2), centred on the mean for accuracy: Cov(X, X^2) = Cov(Y, Y^2) + 2 m Var X, Y = X - m.
  double c3 = 0;
  for (double v : x) {
    const double y = v - m;
    c3 += y * y * y;
  }
  const double n = double(x.size());
  const double cov_y_y2 = c3 / (n - 1);  // E[Y] = 0, so Cov(Y, Y^2) = E[Y^3] (n - 1 normalised, as R's cov)
  r.pivot = m + cov_y_y2 / (2 * var);
  std::vector<double> folded(x.size());
  for (size_t i = 0; i < x.size(); ++i) folded[i] = std::fabs(x[i] - r.pivot);
  r.phi = 4 * mean_var(folded).second / var;
  r.unimodal = r.phi >= 1;
  r.p_value = folding_p_value(r.phi, r.n, 1);
  return r;
}

namespace {

// W1 of two sorted, non-empty samples: walk the merged breakpoints; between
// consecutive ones both CDFs are constant.
double w1_of_sorted(const std::vector<double>& sa, const std::vector<double>& sb) {
  const double na = double(sa.size()), nb = double(sb.size());
  size_t i = 0, j = 0;
  double x = std::min(sa[0], sb[0]), w = 0;
  while (i < sa.size() || j < sb.size()) {
    const double next = j == sb.size() || (i < sa.size() && sa[i] <= sb[j]) ? sa[i] : sb[j];
    w += std::fabs(double(i) / na - double(j) / nb) * (next - x);
    x = next;
    while (i < sa.size() && sa[i] == x) ++i;
    while (j < sb.size() && sb[j] == x) ++j;
  }
  return w;
}

}  // namespace

double wasserstein1(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return 0;
  std::vector<double> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return w1_of_sorted(sa, sb);
}

double wasserstein1_equal_n(std::span<const double> a, std::span<const double> b) {
  std::vector<double> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  double s = 0;
  for (size_t i = 0; i < sa.size(); ++i) s += std::fabs(sa[i] - sb[i]);
  return sa.empty() ? 0 : s / double(sa.size());
}

double pivot_split_w1(std::span<const double> x, double pivot) {
  std::vector<double> left, right;
  for (double v : x) (v <= pivot ? left : right).push_back(v);
  if (left.empty() || right.empty()) return 0;
  std::sort(left.begin(), left.end());
  std::sort(right.begin(), right.end());
  return w1_of_sorted(left, right);
}

double robust_z_max(std::span<const double> x) {
  if (x.empty()) return 0;
  std::vector<double> v(x.begin(), x.end());
  const double med = median(v);
  for (auto& y : v) y = std::fabs(y - med);
  const double mad = 1.4826 * median(v);
  const double mx = *std::max_element(x.begin(), x.end());
  if (mad > 0) return (mx - med) / mad;
  return mx > med ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace sdc::stats
