#include "foundation/theory/critical_shift.hpp"

#include <cmath>
#include <numbers>

namespace sdc {
namespace {

// The B.2 equation's residual at Delta for one root of y*; nullopt where the
// root leaves (0, Delta) or the logarithm is undefined.
std::optional<double> residual(double d, double sigma, double p, int sign) {
  const double disc = d * d - 4 * sigma * sigma;
  if (disc < 0) return std::nullopt;
  const double y = 0.5 * (d + sign * std::sqrt(disc));
  if (!(y > 0 && d - y > 0)) return std::nullopt;
  return std::log((1 - p) * y / (p * (d - y))) - (y * d - 0.5 * d * d) / (sigma * sigma);
}

}  // namespace

std::optional<critical_shift> delta_crit(double sigma, double p) {
  if (!(sigma > 0 && p > 0 && p < 1)) return std::nullopt;
  const double step = sigma * 1e-3, start = 2 * sigma * (1 + 1e-12), stop = 2 * sigma + 200 * sigma;
  std::optional<double> prev[2] = {residual(start, sigma, p, +1), residual(start, sigma, p, -1)};
  for (double d = start; d < stop; d += step) {
    const double d2 = d + step;
    for (int r = 0; r < 2; ++r) {
      const int sign = r == 0 ? +1 : -1;
      const auto b = residual(d2, sigma, p, sign);
      const auto a = prev[r];
      prev[r] = b;
      if (!a || !b || (*a > 0) == (*b > 0)) continue;
      double lo = d, hi = d2;
      for (int it = 0; it < 200 && hi - lo > 1e-14 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        const auto fm = residual(mid, sigma, p, sign);
        if (!fm) break;
        ((*fm > 0) == (*a > 0) ? lo : hi) = mid;
      }
      critical_shift c;
      c.delta = 0.5 * (lo + hi);
      c.root_sign = sign;
      c.y_star = 0.5 * (c.delta + sign * std::sqrt(std::max(0.0, c.delta * c.delta - 4 * sigma * sigma)));
      return c;
    }
  }
  return std::nullopt;
}

double exponent_position(double delta, int exponent_bits) { return double(exponent_bits) - 1 - std::log2(delta); }

double mixture_density(double y, double sigma, double p, double delta, int derivative) {
  auto phi = [&](double t) {
    const double base = std::exp(-t * t / (2 * sigma * sigma)) / (sigma * std::sqrt(2 * std::numbers::pi));
    if (derivative == 0) return base;
    if (derivative == 1) return -t / (sigma * sigma) * base;
    return (t * t - sigma * sigma) / (sigma * sigma * sigma * sigma) * base;
  };
  return (1 - p) * phi(y) + p * phi(y - delta);
}

}  // namespace sdc
