#include "workloads/gradient/log_norms.hpp"

#include <fmt/format.h>

#include <regex>

#include "harness/errors.hpp"

#include <bit>
#include <cmath>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace sdc {
namespace {

inline double reduce8(const double l[8]) { return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7])); }
inline double reduce32(const double l[32]) {
  double a[8];
  for (int k = 0; k < 8; ++k) a[k] = (l[k] + l[8 + k]) + (l[16 + k] + l[24 + k]);
  return reduce8(a);
}

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

}  // namespace

double sum_squares_reference(const float* x, int64_t n) {
  double l[32] = {};
  for (int64_t e = 0; e < n; ++e) l[e % 32] = std::fma(double(x[e]), double(x[e]), l[e % 32]);
  return reduce32(l);
}

double sum_squares_bf16_reference(const uint16_t* x, int64_t n) {
  double l[32] = {};
  for (int64_t e = 0; e < n; ++e) {
    const double v = bf16_to_float(x[e]);
    l[e % 32] = std::fma(v, v, l[e % 32]);
  }
  return reduce32(l);
}

#if defined(__AVX512F__)
namespace {
// The AVX-512 reduction of 8 lanes in reduce8's order.
inline double reduce_zmm(__m512d v) {
  const __m256d a = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));  // l0+l4, l1+l5, l2+l6, l3+l7
  const __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));      // (l0+l4)+(l2+l6), (l1+l5)+(l3+l7)
  return _mm_cvtsd_f64(_mm_add_sd(b, _mm_unpackhi_pd(b, b)));
}
}  // namespace
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
namespace {
// Eight elements from e as doubles; `m` masks a partial block (zeros elsewhere).
inline __m512d load8(const float* x, int64_t e, __mmask8 m) { return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, x + e)); }
inline __m512d load8(const uint16_t* x, int64_t e, __mmask8 m) {
  const __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_maskz_loadu_epi16(m, x + e)), 16);
  return _mm512_cvtps_pd(_mm256_castsi256_ps(w));
}

template <class T>
double sum_squares_avx512(const T* x, int64_t n) {
  __m512d acc[4] = {_mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd()};
  int64_t e = 0;
  for (; e + 32 <= n; e += 32) {
    // One 64-byte line of bf16 (two of fp32) per block: fetch 4 KiB ahead.
    __builtin_prefetch(reinterpret_cast<const char*>(x + e) + 4096, 0, 3);
    for (int k = 0; k < 4; ++k) {
      const __m512d v = load8(x, e + 8 * k, 0xff);
      acc[k] = _mm512_fmadd_pd(v, v, acc[k]);
    }
  }
  for (int k = 0; e < n; e += 8, ++k) {  // the last (partial) 32-block, lane e mod 32
    const __mmask8 m = n - e >= 8 ? __mmask8(0xff) : __mmask8((1u << (n - e)) - 1);
    const __m512d v = load8(x, e, m);
    acc[k] = _mm512_mask3_fmadd_pd(v, v, acc[k], m);
  }
  // a_k = (l_k + l_{8+k}) + (l_{16+k} + l_{24+k}), then the 8-lane reduction.
  return reduce_zmm(_mm512_add_pd(_mm512_add_pd(acc[0], acc[1]), _mm512_add_pd(acc[2], acc[3])));
}
}  // namespace
#define SDCBENCH_LOGNORM_AVX512 1
#endif

double sum_squares_fast(const float* x, int64_t n) {
#if SDCBENCH_LOGNORM_AVX512
  return sum_squares_avx512(x, n);
#else
  return sum_squares_reference(x, n);
#endif
}

double sum_squares_bf16_fast(const uint16_t* x, int64_t n) {
#if SDCBENCH_LOGNORM_AVX512
  return sum_squares_avx512(x, n);
#else
  return sum_squares_bf16_reference(x, n);
#endif
}

double log_norm_fast(const float* x, int64_t n) { return 0.5 * std::log(sum_squares_fast(x, n)); }
double log_norm_reference(const float* x, int64_t n) { return 0.5 * std::log(sum_squares_reference(x, n)); }

std::string split_rule::text() const {
  return k == kind::per_tensor ? "per_tensor" : k == kind::per_row ? "per_row" : fmt::format("block({})", block);
}

split_rule parse_split(const std::string& v) {
  if (v == "per_tensor") return {split_rule::kind::per_tensor, 0};
  if (v == "per_row") return {split_rule::kind::per_row, 0};
  static const std::regex re(R"(block\((\d+)\))");
  std::smatch m;
  if (std::regex_match(v, m, re) && std::stoll(m[1]) >= 1) return {split_rule::kind::block, std::stoll(m[1])};
  throw value_error("expected a split: per_tensor, per_row or block(N); got '" + v + "'");
}

int64_t vector_length(const split_rule& s, int64_t numel, int64_t row) {
  return s.k == split_rule::kind::per_tensor ? numel : s.k == split_rule::kind::per_row ? row : s.block;
}

}  // namespace sdc
