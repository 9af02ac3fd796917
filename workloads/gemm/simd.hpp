// The few vector operations the fixed-order GEMM needs, for the widest ISA the
// build targets (AVX-512F, else AVX2+FMA, else scalar std::fma). Every multiply-
// add is an explicit fused operation, matching std::fma in the reference twin.
#pragma once
#include <cmath>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace sdc::simd {

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
};
#else
template <class T>
struct ops {
  using reg = T;
  static constexpr int width = 1;
  static reg load(const T* p) { return *p; }
  static void store(T* p, reg v) { *p = v; }
  static reg set1(T x) { return x; }
  static reg zero() { return T(0); }
  static reg fma(reg a, reg b, reg c) { return std::fma(a, b, c); }
  static reg add(reg a, reg b) { return a + b; }
};
#endif

}  // namespace sdc::simd
