// The body of the log-norm kernels (log_norms_dispatch.hpp), compiled once per
// SIMD level by log_norms_{scalar,avx2,avx512}.cpp with that level's flags
// (CMakeLists.txt), inside its namespace SDC_KERNEL_NS. The avx512 level has
// the hand-written AVX-512 path; the others run log_norms.hpp's order as a
// plain loop compiled for the level. All give the reference's bits (tested
// on every level the CPU runs). Builtins only (see int8_kernels_body.hpp).
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including log_norms_body.hpp"
#endif
#include "foundation/kernels/log_norms/log_norms_dispatch.hpp"
#include "foundation/kernels/log_norms/log_norms_order.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include "foundation/simd/intrinsics.hpp"
#define SDC_LOGNORM_AVX512 1
#endif

namespace sdc::SDC_KERNEL_NS {
namespace {

#if SDC_LOGNORM_AVX512
// The AVX-512 reduction of 8 lanes in reduce8's order.
inline double reduce_zmm(__m512d v) {
  const __m256d a = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));  // l0+l4, l1+l5, l2+l6, l3+l7
  const __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));      // (l0+l4)+(l2+l6), (l1+l5)+(l3+l7)
  return _mm_cvtsd_f64(_mm_add_sd(b, _mm_unpackhi_pd(b, b)));
}
// Eight elements from e as doubles; `m` masks a partial block (zeros elsewhere).
inline __m512d load8(const float* x, int64_t e, __mmask8 m) { return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, x + e)); }
inline __m512d load8(const uint16_t* x, int64_t e, __mmask8 m) {
  const __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_maskz_loadu_epi16(m, x + e)), 16);
  return _mm512_cvtps_pd(_mm256_castsi256_ps(w));
}
#endif

template <class T>
double sum_squares(const T* x, int64_t n) {
#if SDC_LOGNORM_AVX512
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
#else
  return sum_squares_in_order(x, n);
#endif
}

}  // namespace

extern const log_norm_kernels log_norm_kernels_table;
const log_norm_kernels log_norm_kernels_table = {&sum_squares<float>, &sum_squares<uint16_t>};

}  // namespace sdc::SDC_KERNEL_NS
