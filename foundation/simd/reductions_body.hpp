// The body of foundation/simd/reductions.hpp's kernels, compiled once per SIMD
// level by reductions_{scalar,avx2,avx512}.cpp, each with its own
// instruction-set flags (CMakeLists.txt) and inside its own namespace
// SDC_KERNEL_NS, so no inline function is shared between them (the linker
// could otherwise keep an AVX-512 copy for the scalar path). Plain loops over
// the lanes, which the compiler turns into the level's vector instructions,
// except the fused multiply-add and the broadcast: GCC 12 leaves a lane
// loop of __builtin_fma as one scalar FMA per lane (12x slower) and a lane
// loop of one value as a masked broadcast per lane, so those call the
// level's intrinsics. Only builtins and intrinsics, no library templates,
// for the same reason.
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including reductions_body.hpp"
#endif
#include "foundation/simd/reductions.hpp"
#include <immintrin.h>

namespace sdc::SDC_KERNEL_NS {
namespace {

inline float fma_of(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline double fma_of(double a, double b, double c) { return __builtin_fma(a, b, c); }

// One register of the level (SDC_VECTOR_BYTES) as a GCC vector type, and
// the L lanes of the fixed order as R = L / W such registers: lane l is
// element l % W of register l / W. Every operation is elementwise, so the
// order is that of the plain lane loop; the registers are separate
// accumulators, so the sums run R chains side by side.
template <class T>
struct reg_of {
  typedef T type __attribute__((vector_size(SDC_VECTOR_BYTES)));
};
template <class T>
using reg = typename reg_of<T>::type;
template <class T>
constexpr int W = int(SDC_VECTOR_BYTES / sizeof(T));
template <class T>
constexpr int R = reduction_lanes<T> / W<T>;

template <class T>
inline reg<T> load(const T* p) {
  reg<T> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store(T* p, reg<T> v) { __builtin_memcpy(p, &v, sizeof v); }
// a * b + c per lane, rounded once (FMA): the same bits as fma_of per lane.
template <class T>
inline reg<T> fmav(reg<T> a, reg<T> b, reg<T> c) {
#if SDC_VECTOR_BYTES == 64
  if constexpr (sizeof(T) == 4) return (reg<T>)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
  else return (reg<T>)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif SDC_VECTOR_BYTES == 32
  if constexpr (sizeof(T) == 4) return (reg<T>)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
  else return (reg<T>)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
#pragma GCC unroll 16
  for (int l = 0; l < W<T>; ++l) c[l] = fma_of(a[l], b[l], c[l]);
  return c;
#endif
}
// x in every lane.
template <class T>
inline reg<T> splat(T x) {
#if SDC_VECTOR_BYTES == 64
  if constexpr (sizeof(T) == 4) return (reg<T>)_mm512_set1_ps(x);
  else return (reg<T>)_mm512_set1_pd(x);
#elif SDC_VECTOR_BYTES == 32
  if constexpr (sizeof(T) == 4) return (reg<T>)_mm256_set1_ps(x);
  else return (reg<T>)_mm256_set1_pd(x);
#else
  if constexpr (sizeof(T) == 4) return (reg<T>)_mm_set1_ps(x);
  else return (reg<T>)_mm_set1_pd(x);
#endif
}

// The lanes of R registers folded by halves (lane l takes lane l + L/2, then
// L/4, ... 1): while the halves span whole registers, as register adds
// (the same elementwise additions), then within register 0.
template <class T>
inline T fold(reg<T>* regs) {
  for (int h = R<T> / 2; h >= 1; h /= 2)
    for (int r = 0; r < h; ++r) regs[r] += regs[r + h];
  T a[W<T>];
  for (int l = 0; l < W<T>; ++l) a[l] = regs[0][l];
  for (int h = W<T> / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] += a[l + h];
  return a[0];
}

template <class T>
T sum(const T* __restrict x, int64_t n) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L) {
#pragma GCC unroll 16
    for (int r = 0; r < R<T>; ++r) a[r] += load(x + j + r * W<T>);
  }
  for (int l = 0; l < int(n - j); ++l) a[l / W<T>][l % W<T>] += x[j + l];
  return fold<T>(a);
}

template <class T>
void sum_and_weighted(const T* __restrict x, const T* __restrict w, int64_t n, T* s, T* sw) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {}, b[R<T>] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L) {
#pragma GCC unroll 16
    for (int r = 0; r < R<T>; ++r) {
      const reg<T> v = load(x + j + r * W<T>);
      a[r] += v, b[r] = fmav<T>(load(w + j + r * W<T>), v, b[r]);
    }
  }
  for (int l = 0; l < int(n - j); ++l) {  // element by element: clang binds no reference to a vector element
    const int q = l / W<T>, p = l % W<T>;
    a[q][p] += x[j + l], b[q][p] = fma_of(w[j + l], x[j + l], b[q][p]);
  }
  *s = fold<T>(a), *sw = fold<T>(b);
}

template <class T>
void dot2(const T* __restrict x, const T* __restrict y1, const T* __restrict y2, int64_t n, T* d1, T* d2) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {}, b[R<T>] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L) {
#pragma GCC unroll 16
    for (int r = 0; r < R<T>; ++r) {
      const reg<T> v = load(x + j + r * W<T>);
      a[r] = fmav<T>(v, load(y1 + j + r * W<T>), a[r]), b[r] = fmav<T>(v, load(y2 + j + r * W<T>), b[r]);
    }
  }
  for (int l = 0; l < int(n - j); ++l) {
    const int q = l / W<T>, p = l % W<T>;
    a[q][p] = fma_of(x[j + l], y1[j + l], a[q][p]), b[q][p] = fma_of(x[j + l], y2[j + l], b[q][p]);
  }
  *d1 = fold<T>(a), *d2 = fold<T>(b);
}

// The sum's lanes folded; the extrema over the lanes: exact, so in any order
// but for the sign of a zero (registers first, then lane by lane).
template <class T>
inline void finish_stats(reg<T>* s, reg<T>* hi, reg<T>* lo, double* sum, double* max, double* min) {
  for (int r = 1; r < R<T>; ++r) hi[0] = hi[0] < hi[r] ? hi[r] : hi[0], lo[0] = lo[r] < lo[0] ? lo[r] : lo[0];
  T h = hi[0][0], o = lo[0][0];
  for (int l = 1; l < W<T>; ++l) h = h < hi[0][l] ? hi[0][l] : h, o = lo[0][l] < o ? lo[0][l] : o;
  *sum = double(fold<T>(s)), *max = double(h), *min = double(o);
}

// sum_max_min, and with Dot the two dot products of dot2, in one pass.
template <bool Dot, class T>
void stats_body(const T* __restrict x, const T* __restrict y1, const T* __restrict y2, int64_t n, T* d1, T* d2,
                double* sum, double* max, double* min) {
  constexpr int L = reduction_lanes<T>;
  reg<T> s[R<T>] = {}, hi[R<T>], lo[R<T>], a[R<T>] = {}, b[R<T>] = {};
  for (int r = 0; r < R<T>; ++r) hi[r] = splat<T>(T(-__builtin_inf())), lo[r] = splat<T>(T(__builtin_inf()));
  int64_t j = 0;
  // (m < v ? v : m) is std::max(m, v): a NaN v is never taken.
  for (; j + L <= n; j += L) {
#pragma GCC unroll 16
    for (int r = 0; r < R<T>; ++r) {
      const reg<T> v = load(x + j + r * W<T>);
      s[r] += v;
      hi[r] = hi[r] < v ? v : hi[r];
      lo[r] = v < lo[r] ? v : lo[r];
      if constexpr (Dot) a[r] = fmav<T>(v, load(y1 + j + r * W<T>), a[r]), b[r] = fmav<T>(v, load(y2 + j + r * W<T>), b[r]);
    }
  }
  for (int l = 0; l < int(n - j); ++l) {
    const T v = x[j + l];
    const int q = l / W<T>, p = l % W<T>;
    s[q][p] += v;
    if (hi[q][p] < v) hi[q][p] = v;
    if (v < lo[q][p]) lo[q][p] = v;
    if constexpr (Dot) a[q][p] = fma_of(v, y1[j + l], a[q][p]), b[q][p] = fma_of(v, y2[j + l], b[q][p]);
  }
  finish_stats<T>(s, hi, lo, sum, max, min);
  if constexpr (Dot) *d1 = fold<T>(a), *d2 = fold<T>(b);
}

template <class T>
void sum_max_min(const T* x, int64_t n, double* sum, double* max, double* min) {
  stats_body<false, T>(x, nullptr, nullptr, n, nullptr, nullptr, sum, max, min);
}

template <class T>
void dot2_sum_max_min(const T* x, const T* y1, const T* y2, int64_t n, T* d1, T* d2, double* sum, double* max,
                      double* min) {
  stats_body<true, T>(x, y1, y2, n, d1, d2, sum, max, min);
}

template <class T>
void sums_and_column(const T* __restrict x, const T* __restrict w, int64_t n, T* s, T* sw, T* __restrict col) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {}, b[R<T>] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L) {
#pragma GCC unroll 16
    for (int r = 0; r < R<T>; ++r) {
      const int64_t o = j + r * W<T>;
      const reg<T> v = load(x + o);
      a[r] += v, b[r] = fmav<T>(load(w + o), v, b[r]);
      store(col + o, load(col + o) + v);
    }
  }
  for (int l = 0; l < int(n - j); ++l) {
    const int q = l / W<T>, p = l % W<T>;
    a[q][p] += x[j + l], b[q][p] = fma_of(w[j + l], x[j + l], b[q][p]), col[j + l] += x[j + l];
  }
  *s = fold<T>(a), *sw = fold<T>(b);
}

template <class T>
void axpy2_rows(const T* __restrict a1, const T* __restrict a2, const T* __restrict x, int64_t ld, int64_t rows, int64_t n,
                T* __restrict y1, T* __restrict y2) {
  int64_t j = 0;
  for (; j + W<T> <= n; j += W<T>) {
    reg<T> s1 = load(y1 + j), s2 = load(y2 + j);
    for (int64_t r = 0; r < rows; ++r) {
      const reg<T> v = load(x + r * ld + j);
      s1 = fmav<T>(splat<T>(a1[r]), v, s1), s2 = fmav<T>(splat<T>(a2[r]), v, s2);
    }
    store(y1 + j, s1), store(y2 + j, s2);
  }
  for (; j < n; ++j)
    for (int64_t r = 0; r < rows; ++r) y1[j] = fma_of(a1[r], x[r * ld + j], y1[j]), y2[j] = fma_of(a2[r], x[r * ld + j], y2[j]);
}

}  // namespace

extern const reduction_kernels<float> kernels_f32;
extern const reduction_kernels<double> kernels_f64;
const reduction_kernels<float> kernels_f32 = {&sum<float>,         &sum_and_weighted<float>, &dot2<float>,
                                             &sum_max_min<float>, &dot2_sum_max_min<float>, &sums_and_column<float>,
                                             &axpy2_rows<float>};
const reduction_kernels<double> kernels_f64 = {&sum<double>,         &sum_and_weighted<double>, &dot2<double>,
                                               &sum_max_min<double>, &dot2_sum_max_min<double>, &sums_and_column<double>,
                                               &axpy2_rows<double>};

}  // namespace sdc::SDC_KERNEL_NS
