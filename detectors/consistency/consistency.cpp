#include "detectors/consistency/consistency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sdc {
namespace {

double dot(std::span<const float> a, std::span<const float> b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * double(b[i]);
  return s;
}

// Mean, population std and range of x.
void dispersion(std::span<const double> x, double* mean, double* std, double* range) {
  double m = 0;
  for (double v : x) m += v / double(x.size());
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  *mean = m, *std = std::sqrt(ss / double(x.size()));
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  *range = *hi - *lo;
}

template <class Dot>
consistency norms_and_losses(std::span<const double> losses, const std::vector<std::span<const float>>& grads, Dot dot_of) {
  consistency c;
  double loss_mean;
  dispersion(losses, &loss_mean, &c.loss_std, &c.loss_range);
  for (const auto& g : grads) c.norms.push_back(std::sqrt(dot_of(g, g)));
  dispersion(c.norms, &c.norm_mean, &c.norm_std, &c.norm_range);
  return c;
}

// sum_i a_i b_i in fp64 over 8 lanes (lane i mod 8, added in lane order);
// b is the ranks' float gradients or the fp64 unit-vector sum S.
template <class B>
double lane_dot(std::span<const float> a, const B& b) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const size_t n = a.size(), whole = n - n % 8;
  for (size_t i = 0; i < whole; i += 8)
    for (size_t l = 0; l < 8; ++l) acc[l] += double(a[i + l]) * double(b[i + l]);
  for (size_t i = whole; i < n; ++i) acc[i % 8] += double(a[i]) * double(b[i]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace

double dot_lanes(std::span<const float> a, std::span<const float> b) { return lane_dot(a, b); }

consistency consistency_metrics(std::span<const double> losses, const std::vector<std::span<const float>>& grads) {
  consistency c = norms_and_losses(losses, grads, dot_lanes);
  const size_t R = grads.size(), P = grads.empty() ? 0 : grads[0].size();
  // S = sum_i u_i: what the extra all-reduce of the unit vectors returns.
  std::vector<double> S(P, 0.0);
  for (size_t r = 0; r < R; ++r) {
    const double inv = 1 / c.norms[r];
    for (size_t p = 0; p < P; ++p) S[p] += double(grads[r][p]) * inv;
  }
  double lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t p = 0; p < P; ++p) lanes[p % 8] += S[p] * S[p];
  const double s2 = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  c.cos_mean = R > 1 ? (s2 - double(R)) / (double(R) * double(R - 1)) : k_nan;
  for (size_t r = 0; r < R; ++r) {
    const double us = lane_dot(grads[r], S) / c.norms[r];
    const double rest2 = s2 - 2 * us + 1;
    c.cos_to_rest.push_back(R > 1 ? (us - 1) / std::sqrt(std::fmax(rest2, 0.0)) : k_nan);
  }
  if (!std::isfinite(s2)) c.cos_mean = k_nan;
  return c;
}

consistency consistency_reference(std::span<const double> losses, const std::vector<std::span<const float>>& grads) {
  consistency c = norms_and_losses(losses, grads, dot);
  const size_t R = grads.size(), P = grads.empty() ? 0 : grads[0].size();
  double sum = 0;
  for (size_t i = 0; i < R; ++i)
    for (size_t j = i + 1; j < R; ++j) sum += dot(grads[i], grads[j]) / (c.norms[i] * c.norms[j]);
  c.cos_mean = R > 1 ? sum / (double(R) * double(R - 1) / 2) : k_nan;
  for (size_t i = 0; i < R; ++i) {
    std::vector<double> rest(P, 0.0);
    for (size_t j = 0; j < R; ++j)
      if (j != i)
        for (size_t p = 0; p < P; ++p) rest[p] += double(grads[j][p]) / c.norms[j];
    double num = 0, den = 0;
    for (size_t p = 0; p < P; ++p) num += double(grads[i][p]) * rest[p], den += rest[p] * rest[p];
    c.cos_to_rest.push_back(R > 1 ? num / (c.norms[i] * std::sqrt(den)) : k_nan);
  }
  return c;
}

std::vector<double> robust_z_over_ranks(std::span<const double> x) {
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  std::vector<double> finite;
  for (double v : x)
    if (!std::isnan(v)) finite.push_back(v);
  std::vector<double> z(x.size(), k_nan);
  if (finite.empty()) return z;
  const double med = median(finite);
  std::vector<double> dev;
  for (double v : finite) dev.push_back(std::fabs(v - med));
  const double mad = 1.4826 * median(dev);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    const double d = x[i] - med;
    z[i] = mad > 0 ? d / mad : (d == 0 ? 0.0 : std::copysign(INFINITY, d));
  }
  return z;
}

}  // namespace sdc
