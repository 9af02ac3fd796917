// The few vector operations the fixed-order GEMM needs, for the instruction
// set the including file is compiled for (AVX-512F, else AVX2+FMA, else
// scalar fma): included only by gemm_fixed_order_body.hpp, once per SIMD
// level, inside that level's namespace SDC_KERNEL_NS, so the versions never
// meet at link time. Every multiply-add is an explicit fused operation,
// matching std::fma in the reference twin.
#pragma once
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including simd.hpp"
#endif

#if defined(__AVX512F__) || defined(__AVX2__)
#include "foundation/simd/intrinsics.hpp"
#endif

namespace sdc::SDC_KERNEL_NS::simd {

template <class T>
struct ops;

#if defined(__AVX512F__)
template <>
struct ops<float> {
  using reg = __m512;
  static constexpr int width = 16;
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, reg v) { _mm512_storeu_ps(p, v); }
  static reg set1(float x) { return _mm512_set1_ps(x); }
  static reg zero() { return _mm512_setzero_ps(); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  // m < x ? x : m, and x < m ? x : m, per lane (ordered compares: a NaN x is never taken).
  static reg max_keep(reg m, reg x) { return _mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(m, x, _CMP_LT_OQ), x); }
  static reg min_keep(reg m, reg x) { return _mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(x, m, _CMP_LT_OQ), x); }
};
template <>
struct ops<double> {
  using reg = __m512d;
  static constexpr int width = 8;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  static reg set1(double x) { return _mm512_set1_pd(x); }
  static reg zero() { return _mm512_setzero_pd(); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg max_keep(reg m, reg x) { return _mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(m, x, _CMP_LT_OQ), x); }
  static reg min_keep(reg m, reg x) { return _mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(x, m, _CMP_LT_OQ), x); }
};
#elif defined(__AVX2__) && defined(__FMA__)
template <>
struct ops<float> {
  using reg = __m256;
  static constexpr int width = 8;
  static reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  static reg set1(float x) { return _mm256_set1_ps(x); }
  static reg zero() { return _mm256_setzero_ps(); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg max_keep(reg m, reg x) { return _mm256_blendv_ps(m, x, _mm256_cmp_ps(m, x, _CMP_LT_OQ)); }
  static reg min_keep(reg m, reg x) { return _mm256_blendv_ps(m, x, _mm256_cmp_ps(x, m, _CMP_LT_OQ)); }
};
template <>
struct ops<double> {
  using reg = __m256d;
  static constexpr int width = 4;
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  static reg set1(double x) { return _mm256_set1_pd(x); }
  static reg zero() { return _mm256_setzero_pd(); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg max_keep(reg m, reg x) { return _mm256_blendv_pd(m, x, _mm256_cmp_pd(m, x, _CMP_LT_OQ)); }
  static reg min_keep(reg m, reg x) { return _mm256_blendv_pd(m, x, _mm256_cmp_pd(x, m, _CMP_LT_OQ)); }
};
#endif
// One element's a * b + c, rounded once.
inline float fma1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline double fma1(double a, double b, double c) { return __builtin_fma(a, b, c); }
#if !defined(__AVX512F__) && !(defined(__AVX2__) && defined(__FMA__))
template <class T>
struct ops {
  using reg = T;
  static constexpr int width = 1;
  static reg load(const T* p) { return *p; }
  static void store(T* p, reg v) { *p = v; }
  static reg set1(T x) { return x; }
  static reg zero() { return T(0); }
  static reg fma(reg a, reg b, reg c) { return fma1(a, b, c); }
  static reg add(reg a, reg b) { return a + b; }
  static reg max_keep(reg m, reg x) { return m < x ? x : m; }
  static reg min_keep(reg m, reg x) { return x < m ? x : m; }
};
#endif

}  // namespace sdc::SDC_KERNEL_NS::simd
