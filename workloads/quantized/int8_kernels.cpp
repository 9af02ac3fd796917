#include "workloads/quantized/int8_kernels.hpp"

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define SDCBENCH_EB_AVX512 1
#endif

namespace sdc {

void gemm_u8s8s32_onednn(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                         int32_t* C, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(C + i * ldc, C + i * ldc + n, 0);
    return;
  }
  // One thread: the engine parallelizes over trials, the benchmarks time one core.
  if (omp_get_max_threads() != 1) omp_set_num_threads(1);
  const int32_t co = 0;
  const dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, A, lda, 0, B, ldb, 0, 0.0f, C, ldc, &co);
  if (st != dnnl_success) throw std::runtime_error("dnnl_gemm_u8s8s32 failed with status " + std::to_string(int(st)));
}

void gemm_u8s8s32_reference(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B,
                            int64_t ldb, int32_t* C, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t p = 0; p < k; ++p) s += int64_t(A[i * lda + p]) * int64_t(B[p * ldb + j]);
      C[i * ldc + j] = int32_t(s);
    }
}

int64_t row_sum_i32_reference(const int32_t* c, int64_t n) {
  int64_t s = 0;
  for (int64_t j = 0; j < n; ++j) s += c[j];
  return s;
}

int64_t row_sum_i32(const int32_t* c, int64_t n) {
#if SDCBENCH_EB_AVX512
  __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512(), a2 = _mm512_setzero_si512(),
          a3 = _mm512_setzero_si512();
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    a0 = _mm512_add_epi64(a0, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j))));
    a1 = _mm512_add_epi64(a1, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 8))));
    a2 = _mm512_add_epi64(a2, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 16))));
    a3 = _mm512_add_epi64(a3, _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j + 24))));
  }
  int64_t s = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)));
  for (; j < n; ++j) s += c[j];
  return s;
#else
  return row_sum_i32_reference(c, n);
#endif
}

void requantize_u8_reference(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                             uint8_t* out, int64_t* row_sums) {
  for (int64_t i = 0; i < m; ++i) {
    int64_t s = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t c = C[i * ldc + j];
      s += c;
      const float q = std::nearbyint(float(c) * multiplier);
      const float v = std::clamp(q + float(zero_point), 0.0f, 255.0f);
      out[i * n + j] = uint8_t(v);
    }
    if (row_sums) row_sums[i] = s;
  }
}

void requantize_u8(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                   uint8_t* out, int64_t* row_sums) {
#if SDCBENCH_EB_AVX512
  const __m512 mul = _mm512_set1_ps(multiplier), zp = _mm512_set1_ps(float(zero_point));
  const __m512 lo = _mm512_setzero_ps(), hi = _mm512_set1_ps(255.0f);
  for (int64_t i = 0; i < m; ++i) {
    const int32_t* c = C + i * ldc;
    uint8_t* o = out + i * n;
    __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    int64_t j = 0;
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
    int64_t s = row_sums ? _mm512_reduce_add_epi64(_mm512_add_epi64(s0, s1)) : 0;
    for (; j < n; ++j) {
      s += c[j];
      const float q = std::nearbyint(float(c[j]) * multiplier);
      o[j] = uint8_t(std::clamp(q + float(zero_point), 0.0f, 255.0f));
    }
    if (row_sums) row_sums[i] = s;
  }
#else
  requantize_u8_reference(C, ldc, m, n, multiplier, zero_point, out, row_sums);
#endif
}

const char* onednn_isa_name() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

int32_t code_sum(const quantized_table& t, int64_t i) {
  int32_t s = 0;
  for (int64_t j = 0; j < t.dim; ++j) s += t.code(i, j);
  return s;
}

void store_row_sums(quantized_table& t) {
  for (int64_t i = 0; i < t.rows; ++i) {
    const int32_t s = code_sum(t, i);
    __builtin_memcpy(t.row(i) + t.code_bytes() + 8, &s, 4);
  }
}

quantized_table quantize_rowwise(const float* x, int64_t rows, int64_t dim, int bits, bool with_row_sums) {
  if (bits != 8 && bits != 4) throw std::invalid_argument("quantize_rowwise: bits must be 8 or 4");
  quantized_table t;
  t.rows = rows, t.dim = dim, t.bits = bits, t.with_row_sums = with_row_sums;
  t.data.assign(size_t(rows * t.stride()), 0);
  const int levels = (1 << bits) - 1;
  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = x + i * dim;
    const auto [lo, hi] = std::minmax_element(xr, xr + dim);
    const float beta = *lo;
    const float alpha = *hi > *lo ? (*hi - *lo) / float(levels) : 1.0f;
    uint8_t* r = t.row(i);
    for (int64_t j = 0; j < dim; ++j) {
      const int q = std::clamp(int(std::nearbyint((xr[j] - beta) / alpha)), 0, levels);
      if (bits == 8) r[j] = uint8_t(q);
      else r[j / 2] |= uint8_t(j & 1 ? q << 4 : q);
    }
    __builtin_memcpy(r + t.code_bytes(), &alpha, 4);
    __builtin_memcpy(r + t.code_bytes() + 4, &beta, 4);
  }
  if (with_row_sums) store_row_sums(t);
  return t;
}

void embedding_bag_reference(const quantized_table& t, const bag_batch& b, float* out) {
  const bool weighted = !b.weights.empty();
  for (int64_t bag = 0; bag < b.bags(); ++bag) {
    float* o = out + bag * t.dim;
    std::fill(o, o + t.dim, 0.0f);
    for (int64_t p = b.offsets[size_t(bag)]; p < b.end(bag); ++p) {
      const int64_t i = b.indices[size_t(p)];
      const float w = weighted ? b.weights[size_t(p)] : 1.0f;
      const float s = w * t.alpha(i), c = w * t.beta(i);
      for (int64_t j = 0; j < t.dim; ++j) o[j] = std::fma(s, float(t.code(i, j)), o[j] + c);
    }
  }
}

namespace {

// always_inline: as a separate function holding only prefetches, GCC's
// pure/const analysis finds it has no effect and deletes the calls.
[[gnu::always_inline]] inline void prefetch_row(const quantized_table& t, int64_t i) {
  const char* r = reinterpret_cast<const char*>(t.row(i));
  const int64_t bytes = t.stride();
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(r + off, 0, 3);
  __builtin_prefetch(r + bytes - 1, 0, 3);
}

#if SDCBENCH_EB_AVX512
// 16 codes starting at code j (j a multiple of 16) as fp32.
inline __m512 codes16(const uint8_t* r, int bits, int64_t j) {
  if (bits == 8) return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + j))));
  const __m128i w = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + j / 2)));
  const __m128i lo = _mm_and_si128(w, _mm_set1_epi16(15));
  const __m128i hi = _mm_slli_epi16(_mm_srli_epi16(w, 4), 8);
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_or_si128(lo, hi)));
}
#endif

}  // namespace

void embedding_bag_fast(const quantized_table& t, const bag_batch& b, float* out, int prefetch) {
  const bool weighted = !b.weights.empty();
  const int64_t n_idx = int64_t(b.indices.size());
  const int64_t vec_end = t.dim - t.dim % 16;
  for (int64_t bag = 0; bag < b.bags(); ++bag) {
    float* o = out + bag * t.dim;
    std::fill(o, o + t.dim, 0.0f);
    for (int64_t p = b.offsets[size_t(bag)]; p < b.end(bag); ++p) {
      if (prefetch > 0 && p + prefetch < n_idx) prefetch_row(t, b.indices[size_t(p + prefetch)]);
      const int64_t i = b.indices[size_t(p)];
      const uint8_t* r = t.row(i);
      const float w = weighted ? b.weights[size_t(p)] : 1.0f;
      const float s = w * t.alpha(i), c = w * t.beta(i);
      int64_t j = 0;
#if SDCBENCH_EB_AVX512
      const __m512 vs = _mm512_set1_ps(s), vc = _mm512_set1_ps(c);
      for (; j < vec_end; j += 16) {
        const __m512 acc = _mm512_add_ps(_mm512_loadu_ps(o + j), vc);
        _mm512_storeu_ps(o + j, _mm512_fmadd_ps(vs, codes16(r, t.bits, j), acc));
      }
#else
      (void)vec_end;
#endif
      for (; j < t.dim; ++j) o[j] = std::fma(s, float(t.code(i, j)), o[j] + c);
    }
  }
}

}  // namespace sdc
