#include "foundation/scoring/proportions.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

#include "foundation/errors.hpp"

namespace sdc {

interval wilson_interval(int64_t x, int64_t n, double z) {
  if (n <= 0) return {0, 1};
  const double nn = double(n), p = double(x) / nn, z2 = z * z;
  const double denom = 1 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  // The closed form rounds: at x = n it gives 1 - 1e-16, at x = 0 a tiny
  // positive bound. The interval always holds the observed rate x/n.
  const double lo = x == 0 ? 0.0 : std::min(p, std::max(0.0, center - half));
  const double hi = x == n ? 1.0 : std::max(p, std::min(1.0, center + half));
  return {lo, hi};
}

// The tails come from Boost.Math (binomial, chi-squared, normal), not our own sums.
double two_proportion_p(int64_t x1, int64_t n1, int64_t x2, int64_t n2) {
  if (n1 <= 0 || n2 <= 0) return std::numeric_limits<double>::quiet_NaN();  // no test without trials
  const double p1 = double(x1) / double(n1), p2 = double(x2) / double(n2);
  const double pooled = double(x1 + x2) / double(n1 + n2);
  const double var = pooled * (1 - pooled) * (1.0 / double(n1) + 1.0 / double(n2));
  if (var <= 0) return 1.0;
  const double z = std::fabs(p1 - p2) / std::sqrt(var);
  return 2 * boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
}

double mcnemar_p(int64_t b, int64_t c) {
  const int64_t n = b + c;
  if (n == 0) return 1.0;
  if (n < 25) {  // two-sided exact: 2 P(X <= min(b, c)), X ~ Binomial(n, 1/2)
    const boost::math::binomial_distribution<double> x(double(n), 0.5);
    return std::min(1.0, 2 * boost::math::cdf(x, double(std::min(b, c))));
  }
  const double d = std::fabs(double(b - c)) - 1;  // with continuity correction, 1 degree of freedom
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared_distribution<double>(1), d * d / double(n)));
}

int64_t outcome_bits::count() const { return std::count(bits_.begin(), bits_.end(), true); }

std::string outcome_bits::hex() const {
  std::string s((bits_.size() + 3) / 4, '0');
  for (size_t t = 0; t < bits_.size(); ++t)
    if (bits_[t]) {
      const int nib = (s[t / 4] >= 'a' ? s[t / 4] - 'a' + 10 : s[t / 4] - '0') | (1 << (t % 4));
      s[t / 4] = char(nib < 10 ? '0' + nib : 'a' + nib - 10);
    }
  return s;
}

outcome_bits outcome_bits::from_hex(const std::string& hex, size_t n) {
  if (hex.size() != (n + 3) / 4)
    throw value_error("outcome string has " + std::to_string(hex.size()) + " hex digits; " + std::to_string(n) +
                      " trials need " + std::to_string((n + 3) / 4));
  outcome_bits b(n);
  for (size_t t = 0; t < n; ++t) {
    const char ch = hex[t / 4];
    int nib;
    if (ch >= '0' && ch <= '9') nib = ch - '0';
    else if (ch >= 'a' && ch <= 'f') nib = ch - 'a' + 10;
    else throw value_error(std::string("outcome string has a non-hex digit '") + ch + "'");
    b.set(t, (nib >> (t % 4)) & 1);
  }
  return b;
}

}  // namespace sdc
