// All 2^32 fp32 inputs: the fast bf16/fp16 conversions, the generic descriptor
// encoder, and an independent reference agree bit for bit. fp16's reference is
// the CPU's F16C instruction; bf16's are the generic encoder (integer RNE on the
// double's significand) and, on a stride of inputs, MPFR. Label: slow.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <thread>
#include <vector>

#include "foundation/formats/format.hpp"
#include "foundation/formats/narrow_fp32.hpp"

#if defined(__F16C__)
#include "foundation/simd/intrinsics.hpp"
#endif

using namespace sdc;

namespace {

// Runs fn(lo, hi) over [0, 2^32) split across the machine's threads; sums the mismatches.
template <class F>
uint64_t over_all_fp32(F fn) {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> bad{0};
  std::vector<std::thread> pool;
  const uint64_t span = (1ull << 32) / n;
  for (unsigned t = 0; t < n; ++t)
    pool.emplace_back([&, t] {
      const uint64_t lo = t * span, hi = t + 1 == n ? (1ull << 32) : (t + 1) * span;
      bad += fn(lo, hi);
    });
  for (auto& th : pool) th.join();
  return bad;
}

// bf16 by MPFR: round to 8 significant bits with bf16's exponent range and subnormals.
uint16_t bf16_by_mpfr(float x) {
  if (std::isnan(x)) return uint16_t((std::bit_cast<uint32_t>(x) >> 16) | 0x40);
  mpfr_t v;
  mpfr_init2(v, 8);
  const auto emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-132);  // MPFR exponents: x = m * 2^e, m in [1/2, 1): bf16 min subnormal 2^-133 = 0.5 * 2^-132
  mpfr_set_emax(128);
  int inex = mpfr_set_flt(v, x, MPFR_RNDN);
  inex = mpfr_check_range(v, inex, MPFR_RNDN);
  mpfr_subnormalize(v, inex, MPFR_RNDN);
  const float r = mpfr_get_flt(v, MPFR_RNDN);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(v);
  return uint16_t(std::bit_cast<uint32_t>(r) >> 16);
}

}  // namespace

TEST(FormatsExhaustive, Fp32ToBf16AllInputs) {
  const uint64_t bad = over_all_fp32([](uint64_t lo, uint64_t hi) {
    uint64_t b = 0;
    for (uint64_t u = lo; u < hi; ++u) {
      const float x = std::bit_cast<float>(uint32_t(u));
      const uint16_t fast = bf16_from_fp32(x);
      b += fast != encode(bf16(), double(x));
      if (u % 4099 == 0) b += fast != bf16_by_mpfr(x);
    }
    return b;
  });
  EXPECT_EQ(bad, 0u);
}

TEST(FormatsExhaustive, Fp32ToFp16AllInputsAgainstF16C) {
#if !defined(__F16C__)
  GTEST_SKIP() << "built without F16C: no hardware reference";
#else
  const uint64_t bad = over_all_fp32([](uint64_t lo, uint64_t hi) {
    uint64_t b = 0;
    for (uint64_t u = lo; u < hi; ++u) {
      const float x = std::bit_cast<float>(uint32_t(u));
      const uint16_t hw = uint16_t(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      b += hw != fp16_from_fp32_soft(x);
      b += hw != encode(fp16(), double(x));
    }
    return b;
  });
  EXPECT_EQ(bad, 0u);
#endif
}
