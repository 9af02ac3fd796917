#include "detectors/gradient/stats/silverman.hpp"

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstring>
#include <string_view>
#include <vector>

#include "foundation/random/streams.hpp"

namespace sdc::stats {
namespace {

constexpr int k_per_h = 8;                       // grid points per bandwidth
constexpr int k_cut = 7 * k_per_h;               // kernel cut at 7h, in grid steps
constexpr int64_t k_max_grid = int64_t(1) << 22;  // grid points at most
constexpr double k_mode_tol = 1e-9;              // hysteresis, relative to the maximum

struct kde_grid {
  double lo = 0, step = 0;
  int64_t size = 0;
};

// The grid for bandwidth h over [xmin - 7h, xmax + 7h]; size 0 when it would
// need more than k_max_grid points.
kde_grid make_grid(double xmin, double xmax, double h) {
  kde_grid g;
  g.step = h / k_per_h;
  g.lo = xmin - 7 * h;
  const double pts = (xmax - xmin) / g.step + 2.0 * k_cut + 2;
  g.size = !(pts <= double(k_max_grid)) ? 0 : int64_t(std::ceil(pts));  // NaN too: no grid
  return g;
}

// Modes of a sampled density: a rise then a fall, each above tol * max.
int count_modes(const std::vector<double>& f) {
  const double tol = k_mode_tol * *std::max_element(f.begin(), f.end());
  int modes = 0;
  bool ascending = false;
  double ref = f.front();  // the running minimum (descending) or maximum (ascending)
  for (double v : f) {
    if (ascending) {
      if (v > ref) ref = v;
      else if (v < ref - tol) ++modes, ascending = false, ref = v;
    } else {
      if (v < ref) ref = v;
      else if (v > ref + tol) ascending = true, ref = v;
    }
  }
  return modes + (ascending ? 1 : 0);
}

// Linear binning, then each occupied bin spreads its weight with the sampled
// kernel (cut at 7h). Unnormalised: mode counts do not need 1 / nh.
int modes_binned(std::span<const double> x, double xmin, double xmax, double h) {
  const kde_grid g = make_grid(xmin, xmax, h);
  if (g.size == 0) return -1;
  std::vector<double> w(size_t(g.size), 0.0), f(size_t(g.size), 0.0);
  for (double v : x) {
    const double pos = (v - g.lo) / g.step;
    const auto j = int64_t(pos);
    const double frac = pos - double(j);
    w[size_t(j)] += 1 - frac;
    w[size_t(j + 1)] += frac;
  }
  double kern[2 * k_cut + 1];
  for (int t = -k_cut; t <= k_cut; ++t) kern[t + k_cut] = std::exp(-0.5 * double(t * t) / double(k_per_h * k_per_h));
  for (int64_t j = 0; j < g.size; ++j) {
    const double wj = w[size_t(j)];
    if (wj == 0) continue;
    const int64_t a = std::max<int64_t>(0, j - k_cut), b = std::min<int64_t>(g.size - 1, j + k_cut);
    for (int64_t i = a; i <= b; ++i) f[size_t(i)] += wj * kern[i - j + k_cut];
  }
  return count_modes(f);
}

int modes_exact(std::span<const double> x, double xmin, double xmax, double h) {
  const kde_grid g = make_grid(xmin, xmax, h);
  if (g.size == 0) return -1;
  std::vector<double> f(size_t(g.size));
  for (int64_t i = 0; i < g.size; ++i) {
    const double t = g.lo + double(i) * g.step;
    double s = 0;
    for (double v : x) s += std::exp(-0.5 * ((t - v) / h) * ((t - v) / h));
    f[size_t(i)] = s;
  }
  return count_modes(f);
}

// The exact kernel sums of modes_exact, each over the sample points within 7h
// of the grid point (sorted input; a point farther away adds < 2.3e-11 of
// its peak, far below the 1e-9 hysteresis): the finish of the fast path.
int modes_windowed(std::span<const double> sorted, double h) {
  const kde_grid g = make_grid(sorted.front(), sorted.back(), h);
  if (g.size == 0) return -1;
  std::vector<double> f(size_t(g.size));
  size_t a = 0, b = 0;
  for (int64_t i = 0; i < g.size; ++i) {
    const double t = g.lo + double(i) * g.step;
    while (a < sorted.size() && sorted[a] < t - 7 * h) ++a;
    while (b < sorted.size() && sorted[b] <= t + 7 * h) ++b;
    double s = 0;
    for (size_t j = a; j < b; ++j) s += std::exp(-0.5 * ((t - sorted[j]) / h) * ((t - sorted[j]) / h));
    f[size_t(i)] = s;
  }
  return count_modes(f);
}

// Bisects geometrically between lo (too many modes) and hi (at most k) to a
// relative width of 1e-4; returns hi.
template <class TooMany>
double bisect(double lo, double hi, TooMany&& too_many) {
  while (hi / lo > 1 + 1e-4) {
    const double mid = std::sqrt(lo * hi);
    (too_many(mid) ? lo : hi) = mid;
  }
  return hi;
}

// Data scaled by a power of two (exact): the same modes at h * 2^e, and no
// overflow of the range or the variance for data near the ends of fp64.
// Returns e: the data times 2^e have their largest magnitude in [1, 2).
int power_of_two_scale(std::span<const double> sorted) {
  const double big = std::max(std::fabs(sorted.front()), std::fabs(sorted.back()));
  return big > 0 && std::isfinite(big) ? -std::ilogb(big) : 0;
}

int modes_at(std::span<const double> sorted, double h, bool exact) {
  return exact ? modes_exact(sorted, sorted.front(), sorted.back(), h)
               : modes_binned(sorted, sorted.front(), sorted.back(), h);
}

}  // namespace

int kde_modes(std::span<const double> sorted, double h) { return modes_at(sorted, h, false); }
int kde_modes_exact(std::span<const double> sorted, double h) { return modes_at(sorted, h, true); }

double critical_bandwidth(std::span<const double> sorted_in, int k, bool exact) {
  if (sorted_in.empty() || !(sorted_in.back() > sorted_in.front())) return 0;
  if (!std::isfinite(sorted_in.front()) || !std::isfinite(sorted_in.back())) return std::nan("");
  const int scale = power_of_two_scale(sorted_in);
  std::vector<double> scaled(sorted_in.begin(), sorted_in.end());
  for (double& v : scaled) v = std::ldexp(v, scale);
  const std::span<const double> sorted(scaled);
  const double range = sorted.back() - sorted.front();
  auto too_many = [&](double h) {
    const int m = modes_at(sorted, h, exact);
    return m < 0 || m > k;  // a grid too fine to build counts as "too many"
  };
  double hi = range;
  for (int i = 0; i < 60 && too_many(hi); ++i) hi *= 2;
  double lo = hi / 2;
  while (!too_many(lo)) {
    hi = lo, lo /= 2;
    if (lo < range * 1e-12) return std::ldexp(hi, -scale);
  }
  hi = bisect(lo, hi, too_many);
  if (exact) return std::ldexp(hi, -scale);
  // The fast path's h is the binned estimate's (0.2-0.4 % low against exact
  // sums: linear binning at 8 points per h). Finish with exact sums, windowed,
  // from a bracket around it, so both paths find the same h to 1e-4.
  auto too_many_exact = [&](double h) {
    const int m = modes_windowed(sorted, h);
    return m < 0 || m > k;
  };
  double elo = hi / 1.02, ehi = hi * 1.02;
  for (int i = 0; i < 200 && !too_many_exact(elo); ++i) ehi = elo, elo /= 1.02;
  for (int i = 0; i < 200 && too_many_exact(ehi); ++i) elo = ehi, ehi *= 1.02;
  return std::ldexp(bisect(elo, ehi, too_many_exact), -scale);
}

silverman_result silverman_test(std::span<const double> x, int64_t B, uint64_t seed, int k) {
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  silverman_result r;
  r.n = int64_t(s.size());
  r.B = B;
  r.h_crit = critical_bandwidth(s, k);
  if (r.h_crit == 0 || !std::isfinite(r.h_crit) || B <= 0) return r;
  rng g = make_stream(seed, fnv1a64(std::string_view(reinterpret_cast<const char*>(s.data()), s.size() * sizeof(double))),
                      0, trial_kind::clean, stream_purpose::detector);
  // The bootstrap on the data scaled by a power of two (exact): the same
  // samples, and a mean and variance that cannot overflow.
  const int scale = power_of_two_scale(s);
  for (double& v : s) v = std::ldexp(v, scale);
  const double h = std::ldexp(r.h_crit, scale);
  double mean = 0;
  for (double v : s) mean += v;
  mean /= double(s.size());
  double ss = 0;
  for (double v : s) ss += (v - mean) * (v - mean);
  const double var = ss / double(s.size() - 1);
  const double shrink = 1 / std::sqrt(1 + h * h / var);
  boost::random::uniform_int_distribution<int64_t> pick(0, r.n - 1);
  boost::random::normal_distribution<double> noise(0, 1);
  std::vector<double> y(s.size());
  for (int64_t b = 0; b < B; ++b) {
    double ymin = INFINITY, ymax = -INFINITY;
    for (double& v : y) {
      v = mean + (s[size_t(pick(g))] - mean + h * noise(g)) * shrink;
      ymin = std::min(ymin, v), ymax = std::max(ymax, v);
    }
    const int m = modes_binned(y, ymin, ymax, h);
    r.exceed += (m < 0 || m > k) ? 1 : 0;
  }
  r.p_value = double(r.exceed) / double(B);
  return r;
}

}  // namespace sdc::stats
