#include "detectors/gradient/stats/uu_test.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "detectors/gradient/stats/ecdf_hull.hpp"

namespace sdc::stats {
namespace {

using matrix = std::vector<double>;  // m x m, row-major

void mat_mul(const matrix& a, const matrix& b, matrix& c, int m) {
  std::fill(c.begin(), c.end(), 0.0);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < m; ++k) {
      const double aik = a[size_t(i * m + k)];
      if (aik == 0) continue;
      for (int j = 0; j < m; ++j) c[size_t(i * m + j)] += aik * b[size_t(k * m + j)];
    }
}

// base^e with a decimal exponent kept aside (the entries overflow otherwise).
void mat_pow(const matrix& base, int base_exp10, int64_t e, matrix& out, int& out_exp10, int m) {
  if (e == 1) {
    out = base, out_exp10 = base_exp10;
    return;
  }
  matrix half(size_t(m) * size_t(m));
  int half_exp10 = 0;
  mat_pow(base, base_exp10, e / 2, half, half_exp10, m);
  mat_mul(half, half, out, m);
  out_exp10 = 2 * half_exp10;
  if (e % 2 == 1) {
    matrix t(out.size());
    mat_mul(base, out, t, m);
    out = t, out_exp10 += base_exp10;
  }
  const size_t mid = size_t((m / 2) * m + m / 2);
  if (out[mid] > 1e140) {
    for (double& v : out) v *= 1e-140;
    out_exp10 += 140;
  }
}

class uu_search {
 public:
  uu_search(std::span<const double> u, double alpha) : u_(u), alpha_(alpha) {}

  int64_t ks_tests = 0;

  // Data (distinct values) in [u_a, u_b] uniform on [u_a, u_b] at level alpha?
  bool uniform(int64_t a, int64_t b) {
    const int64_t len = b - a + 1;
    if (len <= 2) return true;  // D = 1/2 for two points: never rejected
    ++ks_tests;
    const double lo = u_[size_t(a)], range = u_[size_t(b)] - lo;
    double d = 0;
    for (int64_t i = 0; i < len; ++i) {
      const double cdf = (u_[size_t(a + i)] - lo) / range;
      d = std::max({d, double(i + 1) / double(len) - cdf, cdf - double(i) / double(len)});
    }
    return ks_p_value(d, len) >= alpha_;
  }

  // Segments of a sufficient chain through points p (ascending), or -1.
  int sufficient(const std::vector<int64_t>& p) {
    if (p.size() <= 1) return 0;
    if (uniform(p.front(), p.back())) return 1;
    std::vector<size_t> acc{0};  // accepted positions in p
    while (acc.back() != p.size() - 1) {
      const size_t k = acc.back();
      if (uniform(p[k], p[k + 1])) {
        acc.push_back(k + 1);
        continue;
      }
      bool found = false;
      for (size_t r = k + 2; r < p.size() && !found; ++r)
        if (uniform(p[k], p[r])) acc.push_back(r), found = true;
      if (found) continue;
      // Backward: drop accepted points until one reaches p[k + 1] uniformly.
      std::vector<size_t> back(acc.begin(), acc.end() - 1);
      while (!back.empty() && !found) {
        if (uniform(p[back.back()], p[k + 1]))
          back.push_back(k + 1), found = true;
        else
          back.pop_back();
      }
      if (!found) return -1;
      acc = back;
    }
    return int(acc.size()) - 1;
  }

  // Is [a, b] unimodal? Adds the model's segments to `segments` if so.
  bool unimodal(int64_t a, int64_t b, int& segments) {
    if (uniform(a, b)) {
      ++segments;
      return true;
    }
    std::vector<int64_t> lower, upper;
    ecdf_hull(u_, a, b, true, lower);
    ecdf_hull(u_, a, b, false, upper);
    const std::vector<int64_t> g(lower.begin(), lower.end() - 1);  // convex part
    const std::vector<int64_t> l(upper.begin() + 1, upper.end());  // concave part
    // Merged order; a point in both counts as concave, as in the authors' code.
    std::vector<std::pair<int64_t, bool>> merged;  // (index, concave?)
    for (int64_t v : g)
      if (!std::binary_search(l.begin(), l.end(), v)) merged.emplace_back(v, false);
    for (int64_t v : l) merged.emplace_back(v, true);
    std::sort(merged.begin(), merged.end());
    for (size_t pos = 0; pos + 1 < merged.size(); ++pos) {
      if (merged[pos].second || !merged[pos + 1].second) continue;  // a G -> L transition
      std::vector<int64_t> pg, pl;
      for (size_t j = 0; j <= pos; ++j)
        if (!merged[j].second) pg.push_back(merged[j].first);
      for (size_t j = pos + 1; j < merged.size(); ++j)
        if (merged[j].second) pl.push_back(merged[j].first);
      const int sg = sufficient(pg);
      if (sg < 0) continue;
      const int sl = sufficient(pl);
      if (sl < 0) continue;
      const int64_t ia = pg.back(), ib = pl.front();
      if (ia == a && ib == b) continue;  // no progress: the gap is [a, b] itself
      int inner = 0;
      if (!unimodal(ia, ib, inner)) continue;
      segments += sg + sl + inner;
      return true;
    }
    return false;
  }

 private:
  std::span<const double> u_;
  double alpha_;
};

}  // namespace

double kolmogorov_q(double t) {
  if (t <= 0) return 1;
  if (t < 0.2) return 1;  // 1 - 1e-20 and closer
  double s = 0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * t * t);
    s += (k % 2 ? term : -term);
    if (term < 1e-18) break;
  }
  return std::clamp(2 * s, 0.0, 1.0);
}

double ks_cdf_exact(double d, int64_t n) {
  if (d <= 0) return 0;
  if (d >= 1) return 1;
  // Far tail: Marsaglia, Tsang & Wang's own shortcut, accurate to 7 digits
  // there (p < 1e-5 or so), where the matrix would be large.
  const double s2 = double(n) * d * d;
  if (s2 > 7.24 || (s2 > 3.76 && n > 99))
    return 1 - 2 * std::exp(-(2.000071 + 0.331 / std::sqrt(double(n)) + 1.409 / double(n)) * s2);
  const double nd = double(n) * d;
  const auto k = int64_t(nd) + 1;
  const int m = int(2 * k - 1);
  const double h = double(k) - nd;
  matrix H(size_t(m) * size_t(m), 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) H[size_t(i * m + j)] = (i - j + 1 >= 0) ? 1.0 : 0.0;
  for (int i = 0; i < m; ++i) {
    H[size_t(i * m)] -= std::pow(h, i + 1);
    H[size_t((m - 1) * m + i)] -= std::pow(h, m - i);
  }
  H[size_t((m - 1) * m)] += (2 * h - 1 > 0) ? std::pow(2 * h - 1, m) : 0.0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j)
      for (int g = 1; g <= i - j + 1; ++g) H[size_t(i * m + j)] /= g;
  matrix Q(H.size());
  int e10 = 0;
  mat_pow(H, 0, n, Q, e10, m);
  double s = Q[size_t((k - 1) * m + (k - 1))];
  for (int64_t i = 1; i <= n; ++i) {
    s = s * double(i) / double(n);
    if (s < 1e-140) s *= 1e140, e10 -= 140;
  }
  return std::clamp(s * std::pow(10.0, e10), 0.0, 1.0);
}

double ks_p_value(double d, int64_t n) {
  if (n <= 0 || d <= 0) return 1;
  if (d >= 1) return 0;
  if (d <= 0.5 / double(n)) return 1;  // D_n >= 1/(2n) always
  if (n <= 100) return std::clamp(1 - ks_cdf_exact(d, n), 0.0, 1.0);
  const double sn = std::sqrt(double(n));
  return kolmogorov_q((sn + 0.12 + 0.11 / sn) * d);
}

uu_result uu_test(std::span<const double> x, double alpha) {
  std::vector<double> u(x.begin(), x.end());
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  uu_result r;
  r.n_distinct = int64_t(u.size());
  if (u.size() <= 2) {
    r.segments = u.size() == 2 ? 1 : 0;
    return r;
  }
  uu_search s(u, alpha);
  int segments = 0;
  r.unimodal = s.unimodal(0, int64_t(u.size()) - 1, segments);
  r.segments = r.unimodal ? segments : 0;
  r.ks_tests = s.ks_tests;
  return r;
}

}  // namespace sdc::stats
