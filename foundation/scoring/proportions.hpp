// Rates and the tests that compare them. METHODOLOGY.md gives the formulas
// and why each was chosen.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc {

inline constexpr double k_z95 = 1.959963984540054;  // two-sided 95 % normal quantile

struct interval {
  double lo = 0, hi = 1;
};

// Wilson score interval for x successes in n trials (Wilson 1927). n = 0 gives
// [0, 1]; x = 0 gives lo = 0 and x = n hi = 1 exactly, so x/n always lies inside.
interval wilson_interval(int64_t x, int64_t n, double z = k_z95);

// Two-sided p-value of the pooled two-proportion z-test of x1/n1 vs x2/n2.
// 1 when the pooled rate is 0 or 1 (no variance: the rates are equal); NaN
// (not computed: callers record null) when either side has no trials.
double two_proportion_p(int64_t x1, int64_t n1, int64_t x2, int64_t n2);

// McNemar's test on paired outcomes: b = trials only the first flags, c =
// trials only the second flags. Exact two-sided binomial p-value when
// b + c < 25, else chi-square with continuity correction.
double mcnemar_p(int64_t b, int64_t c);

// Per-trial outcome bits, written as lower-case hex: bit t of the string is
// trial t (nibble t/4, bit t%4 within it).
class outcome_bits {
 public:
  explicit outcome_bits(size_t n = 0) : bits_(n, false) {}
  void set(size_t t, bool v) { bits_[t] = v; }
  bool get(size_t t) const { return bits_[t]; }
  size_t size() const { return bits_.size(); }
  int64_t count() const;
  std::string hex() const;
  // Parses hex for n trials; throws value_error on a wrong length or digit.
  static outcome_bits from_hex(const std::string& hex, size_t n);

 private:
  std::vector<bool> bits_;
};

}  // namespace sdc
