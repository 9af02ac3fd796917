// The body of the int8 workloads' vectorized kernels (int8_kernels_dispatch.hpp),
// compiled once per SIMD level by int8_kernels_{scalar,avx2,avx512}.cpp with
// that level's flags (CMakeLists.txt), inside its namespace SDC_KERNEL_NS. The
// avx512 level has hand-written AVX-512 paths, and the widened int8 GEMM an
// AVX2 one too; the rest runs the reference order as plain loops the compiler
// vectorizes for the level. Every level
// gives the reference's bits (tests/test_int8.cpp runs each one). Only
// builtins and raw pointers here: an inline library function shared between
// the levels' files could be kept by the linker in its AVX-512 copy.
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including int8_kernels_body.hpp"
#endif
#include "foundation/kernels/int8/int8_kernels_dispatch.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "foundation/simd/intrinsics.hpp"
#define SDC_INT8_AVX512 1
#elif defined(__AVX2__)
#include "foundation/simd/intrinsics.hpp"
#define SDC_INT8_AVX2 1
#endif

namespace sdc::SDC_KERNEL_NS {
namespace {

// Column blocks of four vectors held in registers over the whole k loop,
// each pair of A broadcast. Integer sums: any order gives the same bits, so
// the blocks and the scalar tail agree.
void gemm_u8_s16pairs(int64_t m, int64_t n, int64_t kp, const int32_t* a_pairs, const int16_t* b_pairs, int32_t* C,
                      int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    const int32_t* a = a_pairs + i * kp;
    int32_t* c = C + i * ldc;
    int64_t j = 0;
#if SDC_INT8_AVX512
    for (; j + 64 <= n; j += 64) {
      __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0;
      for (int64_t p = 0; p < kp; ++p) {
        const __m512i av = _mm512_set1_epi32(a[p]);
        const int16_t* b = b_pairs + p * 2 * n + 2 * j;
        c0 = _mm512_add_epi32(c0, _mm512_madd_epi16(av, _mm512_loadu_si512(b)));
        c1 = _mm512_add_epi32(c1, _mm512_madd_epi16(av, _mm512_loadu_si512(b + 32)));
        c2 = _mm512_add_epi32(c2, _mm512_madd_epi16(av, _mm512_loadu_si512(b + 64)));
        c3 = _mm512_add_epi32(c3, _mm512_madd_epi16(av, _mm512_loadu_si512(b + 96)));
      }
      _mm512_storeu_si512(c + j, c0), _mm512_storeu_si512(c + j + 16, c1);
      _mm512_storeu_si512(c + j + 32, c2), _mm512_storeu_si512(c + j + 48, c3);
    }
#elif SDC_INT8_AVX2
    for (; j + 32 <= n; j += 32) {
      __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0;
      for (int64_t p = 0; p < kp; ++p) {
        const __m256i av = _mm256_set1_epi32(a[p]);
        const __m256i* b = reinterpret_cast<const __m256i*>(b_pairs + p * 2 * n + 2 * j);
        c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(av, _mm256_loadu_si256(b)));
        c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(av, _mm256_loadu_si256(b + 1)));
        c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(av, _mm256_loadu_si256(b + 2)));
        c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(av, _mm256_loadu_si256(b + 3)));
      }
      __m256i* o = reinterpret_cast<__m256i*>(c + j);
      _mm256_storeu_si256(o, c0), _mm256_storeu_si256(o + 1, c1), _mm256_storeu_si256(o + 2, c2);
      _mm256_storeu_si256(o + 3, c3);
    }
#endif
    for (; j < n; ++j) {
      uint32_t s = 0;  // unsigned: the wrap mod 2^32 is defined
      for (int64_t p = 0; p < kp; ++p) {
        const int16_t* b = b_pairs + p * 2 * n + 2 * j;
        s += uint32_t((a[p] & 0xFFFF) * int32_t(b[0]) + (a[p] >> 16) * int32_t(b[1]));
      }
      c[j] = int32_t(s);
    }
  }
}

inline float clamp_u8(float v) { return v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v); }

int64_t row_sum_i32(const int32_t* c, int64_t n) {
  int64_t j = 0, s = 0;
#if SDC_INT8_AVX512
  __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), a2 = _mm512_setzero_si512(),
          a3 = _mm512_setzero_si512();
  for (; j + 32 <= n; j += 32) {
    a0 = _mm512_add_epi64(a0, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j))));
    a1 = _mm512_add_epi64(a1, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 8))));
    a2 = _mm512_add_epi64(a2, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 16))));
    a3 = _mm512_add_epi64(a3, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 24))));
  }
  s = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)));
#endif
  for (; j < n; ++j) s += c[j];  // integers: any order gives the same sum
  return s;
}

void requantize_u8(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                   uint8_t* out, int64_t* row_sums) {
#if SDC_INT8_AVX512
  const __m512 mul = _mm512_set1_ps(multiplier), zp = _mm512_set1_ps(float(zero_point));
  const __m512 lo = _mm512_setzero_ps(), hi = _mm512_set1_ps(255.0f);
#endif
  for (int64_t i = 0; i < m; ++i) {
    const int32_t* c = C + i * ldc;
    uint8_t* o = out + i * n;
    int64_t j = 0, s = 0;
#if SDC_INT8_AVX512
    __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    for (; j + 16 <= n; j += 16) {
      const __m512i x = _mm512_loadu_si512(c + j);
      if (row_sums) {
        s0 = _mm512_add_epi64(s0, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(x)));
        s1 = _mm512_add_epi64(s1, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(x, 1)));
      }
      // round(x * mult) with the default round-to-nearest-even, + zp, clamped: as the reference.
      const __m512 q = _mm512_roundscale_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(x), mul), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(q, zp), lo), hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + j), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
    }
    if (row_sums) s = _mm512_reduce_add_epi64(_mm512_add_epi64(s0, s1));
#endif
    for (; j < n; ++j) {
      s += c[j];
      const float q = __builtin_nearbyintf(float(c[j]) * multiplier);
      o[j] = uint8_t(clamp_u8(q + float(zero_point)));
    }
    if (row_sums) row_sums[i] = s;
  }
}

inline float load_f32(const uint8_t* p) {
  float v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline int code_at(const uint8_t* r, int bits, int64_t j) { return bits == 8 ? r[j] : (j & 1 ? r[j / 2] >> 4 : r[j / 2] & 15); }

// always_inline: as a separate function holding only prefetches, GCC's
// pure/const analysis finds it has no effect and deletes the calls.
[[gnu::always_inline]] inline void prefetch_row(const uint8_t* r, int64_t bytes) {
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(r + off, 0, 3);
  __builtin_prefetch(r + bytes - 1, 0, 3);
}

#if SDC_INT8_AVX512
// 16 codes starting at code j (j a multiple of 16) as fp32.
inline __m512 codes16(const uint8_t* r, int bits, int64_t j) {
  if (bits == 8) return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + j))));
  const __m128i w = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + j / 2)));
  const __m128i lo = _mm_and_si128(w, _mm_set1_epi16(15));
  const __m128i hi = _mm_slli_epi16(_mm_srli_epi16(w, 4), 8);
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_or_si128(lo, hi)));
}
#endif

void embedding_bag(const embedding_bag_args& a, float* out, int prefetch) {
  const int64_t dim = a.dim, vec_end = dim - dim % 16;
  for (int64_t bag = 0; bag < a.bags; ++bag) {
    float* o = out + bag * dim;
    for (int64_t j = 0; j < dim; ++j) o[j] = 0.0f;
    const int64_t end = bag + 1 < a.bags ? a.offsets[bag + 1] : a.n_indices;
    for (int64_t p = a.offsets[bag]; p < end; ++p) {
      if (prefetch > 0 && p + prefetch < a.n_indices) prefetch_row(a.data + a.indices[p + prefetch] * a.stride, a.stride);
      const uint8_t* r = a.data + a.indices[p] * a.stride;
      const float w = a.weights ? a.weights[p] : 1.0f;
      const float s = w * load_f32(r + a.code_bytes), c = w * load_f32(r + a.code_bytes + 4);
      int64_t j = 0;
#if SDC_INT8_AVX512
      const __m512 vs = _mm512_set1_ps(s), vc = _mm512_set1_ps(c);
      for (; j < vec_end; j += 16) {
        const __m512 acc = _mm512_add_ps(_mm512_loadu_ps(o + j), vc);
        _mm512_storeu_ps(o + j, _mm512_fmadd_ps(vs, codes16(r, a.bits, j), acc));
      }
#else
      (void)vec_end;
#endif
      for (; j < dim; ++j) o[j] = __builtin_fmaf(s, float(code_at(r, a.bits, j)), o[j] + c);
    }
  }
}

}  // namespace

extern const int8_kernels int8_kernels_table;
const int8_kernels int8_kernels_table = {&gemm_u8_s16pairs, &row_sum_i32, &requantize_u8, &embedding_bag};

}  // namespace sdc::SDC_KERNEL_NS
