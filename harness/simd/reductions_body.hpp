// The body of harness/simd/reductions.hpp's kernels, compiled once per SIMD
// level by reductions_{scalar,avx2,avx512}.cpp, each with its own
// instruction-set flags (CMakeLists.txt) and inside its own namespace
// SDC_KERNEL_NS, so no inline function is shared between them (the linker
// could otherwise keep an AVX-512 copy for the scalar path). Plain loops over
// the lanes, which the compiler turns into the level's vector instructions;
// only builtins, no library templates, for the same reason.
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including reductions_body.hpp"
#endif
#include "harness/simd/reductions.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {

inline float fma_of(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline double fma_of(double a, double b, double c) { return __builtin_fma(a, b, c); }

template <class T, int L>
inline T fold(T* a) {
  for (int h = L / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] += a[l + h];
  return a[0];
}

template <class T>
T sum(const T* x, int64_t n) {
  constexpr int L = reduction_lanes<T>;
  T a[L] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L)
    for (int l = 0; l < L; ++l) a[l] += x[j + l];
  for (int l = 0; l < int(n - j); ++l) a[l] += x[j + l];
  return fold<T, L>(a);
}

template <class T>
void sum_and_weighted(const T* x, const T* w, int64_t n, T* s, T* sw) {
  constexpr int L = reduction_lanes<T>;
  T a[L] = {}, b[L] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L)
    for (int l = 0; l < L; ++l) a[l] += x[j + l], b[l] = fma_of(w[j + l], x[j + l], b[l]);
  for (int l = 0; l < int(n - j); ++l) a[l] += x[j + l], b[l] = fma_of(w[j + l], x[j + l], b[l]);
  *s = fold<T, L>(a), *sw = fold<T, L>(b);
}

template <class T>
void dot2(const T* x, const T* y1, const T* y2, int64_t n, T* d1, T* d2) {
  constexpr int L = reduction_lanes<T>;
  T a[L] = {}, b[L] = {};
  int64_t j = 0;
  for (; j + L <= n; j += L)
    for (int l = 0; l < L; ++l) a[l] = fma_of(x[j + l], y1[j + l], a[l]), b[l] = fma_of(x[j + l], y2[j + l], b[l]);
  for (int l = 0; l < int(n - j); ++l) a[l] = fma_of(x[j + l], y1[j + l], a[l]), b[l] = fma_of(x[j + l], y2[j + l], b[l]);
  *d1 = fold<T, L>(a), *d2 = fold<T, L>(b);
}

// L lanes of T and of fp64 as GCC vector types (one AVX-512 register of T).
template <class T>
struct vectors;
template <>
struct vectors<float> {
  typedef float lanes __attribute__((vector_size(64)));
  typedef double fp64_lanes __attribute__((vector_size(128)));
};
template <>
struct vectors<double> {
  typedef double lanes __attribute__((vector_size(64)));
  typedef double fp64_lanes __attribute__((vector_size(64)));
};

template <class T>
void sum_max_min(const T* x, int64_t n, double* sum, double* max, double* min) {
  constexpr int L = reduction_lanes<T>;  // the sum in fp64 lanes, the extrema in T (exact either way)
  // GCC vector types: the compiler does not vectorize the extrema of a plain
  // lane loop, and a vector select is elementwise, so the order is unchanged.
  using tvec = typename vectors<T>::lanes;
  using dvec = typename vectors<T>::fp64_lanes;
  dvec s = {};
  tvec hi, lo;
  for (int l = 0; l < L; ++l) hi[l] = T(-__builtin_inf()), lo[l] = T(__builtin_inf());
  int64_t j = 0;
  // (m < v ? v : m) is std::max(m, v): a NaN v is never taken.
  for (; j + L <= n; j += L) {
    tvec v;
    __builtin_memcpy(&v, x + j, sizeof v);
    s += __builtin_convertvector(v, dvec);
    hi = hi < v ? v : hi;
    lo = v < lo ? v : lo;
  }
  for (int l = 0; l < int(n - j); ++l) {
    const T v = x[j + l];
    s[l] += double(v), hi[l] = hi[l] < v ? v : hi[l], lo[l] = v < lo[l] ? v : lo[l];
  }
  double lanes[L];
  T h = hi[0], o = lo[0];
  for (int l = 0; l < L; ++l) lanes[l] = s[l];
  for (int l = 1; l < L; ++l) h = h < hi[l] ? hi[l] : h, o = lo[l] < o ? lo[l] : o;
  *sum = fold<double, L>(lanes), *max = double(h), *min = double(o);
}

}  // namespace

extern const reduction_kernels<float> kernels_f32;
extern const reduction_kernels<double> kernels_f64;
const reduction_kernels<float> kernels_f32 = {&sum<float>, &sum_and_weighted<float>, &dot2<float>, &sum_max_min<float>};
const reduction_kernels<double> kernels_f64 = {&sum<double>, &sum_and_weighted<double>, &dot2<double>, &sum_max_min<double>};

}  // namespace sdc::SDC_KERNEL_NS
