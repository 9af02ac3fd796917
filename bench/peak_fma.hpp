// The CPU's peak fused multiply-add throughput on one core, measured: twelve
// independent FMA chains in the widest vector registers the CPU has (chosen
// at run time, so any x86-64 build measures the machine it runs on), enough to
// cover FMA latency x FMA ports on current cores. The GEMM benchmarks report
// kernels as a share of it, since OpenBLAS's kernels may not be tuned for the
// CPU at hand (issue 14). 2 flops per lane per FMA.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "foundation/simd/intrinsics.hpp"

namespace sdc::bench {

constexpr int k_fma_chains = 12;

template <class T>
struct fma_peak_result {
  double flops = 0;  // per call
  std::string isa;
};

__attribute__((target("avx512f"))) inline void fma_avx512(int64_t reps, float* out) {
  __m512 acc[k_fma_chains];
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm512_set1_ps(float(c));
  for (int64_t r = 0; r < reps; ++r)
    for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  __m512 s = acc[0];
  for (int c = 1; c < k_fma_chains; ++c) s = _mm512_add_ps(s, acc[c]);
  *out = _mm512_reduce_add_ps(s);
}

__attribute__((target("avx512f"))) inline void fma_avx512(int64_t reps, double* out) {
  __m512d acc[k_fma_chains];
  const __m512d a = _mm512_set1_pd(0.999999), b = _mm512_set1_pd(1e-7);
  for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm512_set1_pd(double(c));
  for (int64_t r = 0; r < reps; ++r)
    for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm512_fmadd_pd(acc[c], a, b);
  __m512d s = acc[0];
  for (int c = 1; c < k_fma_chains; ++c) s = _mm512_add_pd(s, acc[c]);
  *out = _mm512_reduce_add_pd(s);
}

__attribute__((target("avx2,fma"))) inline void fma_avx2(int64_t reps, float* out) {
  __m256 acc[k_fma_chains];
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm256_set1_ps(float(c));
  for (int64_t r = 0; r < reps; ++r)
    for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  float lanes[8], s = 0;
  for (int c = 0; c < k_fma_chains; ++c) {
    _mm256_storeu_ps(lanes, acc[c]);
    for (float x : lanes) s += x;
  }
  *out = s;
}

__attribute__((target("avx2,fma"))) inline void fma_avx2(int64_t reps, double* out) {
  __m256d acc[k_fma_chains];
  const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
  for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm256_set1_pd(double(c));
  for (int64_t r = 0; r < reps; ++r)
    for (int c = 0; c < k_fma_chains; ++c) acc[c] = _mm256_fmadd_pd(acc[c], a, b);
  double lanes[4], s = 0;
  for (int c = 0; c < k_fma_chains; ++c) {
    _mm256_storeu_pd(lanes, acc[c]);
    for (double x : lanes) s += x;
  }
  *out = s;
}

template <class T>
void fma_scalar(int64_t reps, T* out) {
  T acc[k_fma_chains];
  for (int c = 0; c < k_fma_chains; ++c) acc[c] = T(c);
  for (int64_t r = 0; r < reps; ++r)
    for (int c = 0; c < k_fma_chains; ++c) acc[c] = std::fma(acc[c], T(0.999999), T(1e-7));
  T s = 0;
  for (T x : acc) s += x;
  *out = s;
}

// Runs `reps` rounds of the chains on the widest ISA available; returns the
// flops done and the ISA's name.
template <class T>
fma_peak_result<T> fma_peak(int64_t reps, T* sink) {
  const double lanes_512 = 64.0 / sizeof(T), lanes_256 = 32.0 / sizeof(T);
  if (__builtin_cpu_supports("avx512f")) {
    fma_avx512(reps, sink);
    return {2.0 * lanes_512 * k_fma_chains * double(reps), "avx512f"};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    fma_avx2(reps, sink);
    return {2.0 * lanes_256 * k_fma_chains * double(reps), "avx2+fma"};
  }
  fma_scalar(reps, sink);
  return {2.0 * k_fma_chains * double(reps), "scalar"};
}

}  // namespace sdc::bench
