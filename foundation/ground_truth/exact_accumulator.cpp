#include "foundation/ground_truth/exact_accumulator.hpp"

#include <gmp.h>

#include <bit>
#include <cmath>
#include <cstring>

namespace sdc {

void exact_accumulator::clear() {
  std::memset(chunk_, 0, sizeof chunk_);
  adds_ = 0;
  exact_ = true;
}

// x = m 2^(p - 1075); m << (p & 31) spans at most 84 bits: its low 32 bits go
// to chunk p >> 5, the rest (at most 52 bits) to the next one.
void exact_accumulator::add_finite_bits(uint64_t bits) {
  const uint64_t biased = (bits >> 52) & 0x7FF;
  uint64_t m = bits & ((uint64_t(1) << 52) - 1);
  if (biased == 0 && m == 0) return;  // +-0
  int p = 1;                          // subnormal: no hidden bit, exponent of p = 1
  if (biased != 0) m |= uint64_t(1) << 52, p = int(biased);
  const int c = p >> 5, sh = p & 31;
  const int64_t low = int64_t((m << sh) & 0xFFFFFFFFu);  // the low 32 bits survive the wrap of the shift
  const int64_t high = int64_t(m >> (32 - sh));          // 32 - sh in 1..32
  const int64_t neg = -int64_t(bits >> 63);              // 0 or -1: (v ^ neg) - neg is v or -v, without
  chunk_[c] += (low ^ neg) - neg;                        // a branch on the sign, which random data
  chunk_[c + 1] += (high ^ neg) - neg;                   // would mispredict half the time
  if (++adds_ == k_adds_between_carries) propagate_carries();
}

void exact_accumulator::add(double x) {
  if (!std::isfinite(x)) {
    exact_ = false;
    return;
  }
  add_finite_bits(std::bit_cast<uint64_t>(x));
}

void exact_accumulator::add_product(double a, double b) {
  const double p = a * b;
  // A non-finite factor or an overflow leaves p non-finite; an underflow is a
  // nonzero product below 2^-969 (its error term would be subnormal) or one
  // rounded to zero. 0 times a finite value passes and adds two zeros.
  const bool underflow = p != 0 ? std::fabs(p) < 0x1p-969 : (a != 0 && b != 0);
  if (!std::isfinite(p) || underflow) {
    exact_ = false;
    return;
  }
  add_finite_bits(std::bit_cast<uint64_t>(p));
  add_finite_bits(std::bit_cast<uint64_t>(std::fma(a, b, -p)));
}

// Chunk c keeps its value mod 2^32 in [0, 2^32); the rest (an arithmetic
// shift, so floor division for negative chunks) moves up. The top chunk
// keeps the sign.
void exact_accumulator::propagate_carries() {
  for (int c = 0; c + 1 < k_chunks; ++c) {
    const int64_t carry = chunk_[c] >> 32;
    chunk_[c] -= int64_t(uint64_t(carry) << 32);
    chunk_[c + 1] += carry;
  }
  adds_ = 0;
}

void exact_accumulator::round_to(mpfr_ptr out) {
  propagate_carries();
  const bool negative = chunk_[k_chunks - 1] < 0;
  if (negative) {  // |sum|: negate every chunk and normalize again
    for (auto& v : chunk_) v = -v;
    propagate_carries();
  }
  // Every chunk is in [0, 2^32) now, the top one any non-negative value.
  uint32_t digits[k_chunks + 1];
  for (int c = 0; c < k_chunks; ++c) digits[c] = uint32_t(uint64_t(chunk_[c]));
  digits[k_chunks] = uint32_t(uint64_t(chunk_[k_chunks - 1]) >> 32);
  mpz_t z;
  mpz_init(z);
  mpz_import(z, k_chunks + 1, -1, sizeof(uint32_t), 0, 0, digits);  // least significant first
  if (negative) mpz_neg(z, z);
  mpfr_set_z_2exp(out, z, -1075, MPFR_RNDN);
  mpz_clear(z);
  if (negative) {  // leave the accumulator holding the sum it held
    for (auto& v : chunk_) v = -v;
    propagate_carries();
  }
}

}  // namespace sdc
