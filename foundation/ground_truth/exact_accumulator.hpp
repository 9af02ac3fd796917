// An exact sum of binary64 values held as one fixed-point integer: R. M.
// Neal's "small superaccumulator" (Fast exact summation using small and large
// superaccumulators, arXiv:1505.05571, 2015). Every finite double is an
// integer m < 2^53 times 2^(p - 1075) with p in 1..2046 (p = 1 for
// subnormals), so the sum of any number of them is an integer multiple of
// 2^-1075; it is kept in 66 chunks of 32 bits, each a signed 64-bit word
// whose 31 spare bits absorb carries, which are propagated every
// k_adds_between_carries additions.
//
// Why not MPFR alone: mpfr_sum on terms made with mpfr_set_d/mpfr_mul_d costs
// about 100 ns a product (issue 14's ground-truth benchmark); an addition here
// costs a few integer adds. MPFR still does the one rounding at the end
// (round_to goes through an mpz and mpfr_set_z_2exp), so the result is the
// exact sum correctly rounded to the target's precision: the same value
// mpfr_sum returns for the same terms. No Debian package provides an exact
// superaccumulator (xsum exists only for Python/C outside Debian's archive),
// so this class is written here and tested against MPFR and GMP
// (tests/test_ground_truth.cpp).
#pragma once
#include <mpfr.h>

#include <cstdint>

namespace sdc {

class exact_accumulator {
 public:
  exact_accumulator() { clear(); }
  void clear();

  // Adds x exactly. A NaN or infinity makes the sum inexact (exact() false).
  void add(double x);

  // Adds a * b exactly as the two doubles p = fl(a b) and e = fma(a, b, -p)
  // (an error-free transformation). It is exact unless the product
  // overflows or its error term would be subnormal (|a b| < 2^-969): then
  // exact() becomes false and the caller falls back to MPFR.
  void add_product(double a, double b);

  // False once a term could not be added exactly; the sum is then meaningless.
  bool exact() const { return exact_; }

  // The sum, correctly rounded (round to nearest, ties to even) to out's
  // precision. Requires exact().
  void round_to(mpfr_ptr out);

  static constexpr int k_chunks = 66;  // p >> 5 <= 63, its high part in 64, carries in 65
  // Each addition changes a chunk by less than 2^53 and a normalized chunk
  // is below 2^32, so 512 additions stay far below 2^63.
  static constexpr int k_adds_between_carries = 512;

 private:
  void add_finite_bits(uint64_t bits);
  void propagate_carries();

  int64_t chunk_[k_chunks];
  int adds_ = 0;
  bool exact_ = true;
};

}  // namespace sdc
