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
// for the same reason (std::integer_sequence below is a type, no code).
// Every access to the accumulator arrays has a constant index (each<N>
// expands the register loops at compile time): with a loop index, GCC 12
// keeps the arrays in memory, and each row then paid for storing and
// reloading them (about 3x the time of a 512-element row's own loads).
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including reductions_body.hpp"
#endif
#include "foundation/simd/reductions_regs_body.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {

template <class T>
T sum(const T* __restrict x, int64_t n) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {};
  const auto step = [&](const T* xp) {
    each<R<T>>([&](auto r) { a[r] += load(xp + r * W<T>); });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) step(x + j);
  if (j < n) step(tail_block<T>(x + j, int(n - j), T(-0.0)).v);
  return fold<T>(a);
}

template <class T>
void sum_and_weighted(const T* __restrict x, const T* __restrict w, int64_t n, T* s, T* sw) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {}, b[R<T>] = {};
  const auto step = [&](const T* xp, const T* wp) {
    each<R<T>>([&](auto r) {
      const reg<T> v = once<T>(load(xp + r * W<T>));
      a[r] += v, b[r] = fmav<T>(load(wp + r * W<T>), v, b[r]);
    });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) step(x + j, w + j);
  if (j < n) {
    const int t = int(n - j);
    step(tail_block<T>(x + j, t, T(-0.0)).v, tail_block<T>(w + j, t, T(0)).v);
  }
  *s = fold<T>(a), *sw = fold<T>(b);
}

template <class T>
void dot2(const T* __restrict x, const T* __restrict y1, const T* __restrict y2, int64_t n, T* d1, T* d2) {
  constexpr int L = reduction_lanes<T>;
  reg<T> a[R<T>] = {}, b[R<T>] = {};
  const auto step = [&](const T* xp, const T* y1p, const T* y2p) {
    each<R<T>>([&](auto r) {
      const reg<T> v = once<T>(load(xp + r * W<T>));
      a[r] = fmav<T>(v, load(y1p + r * W<T>), a[r]), b[r] = fmav<T>(v, load(y2p + r * W<T>), b[r]);
    });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) step(x + j, y1 + j, y2 + j);
  if (j < n) {
    const int t = int(n - j);
    step(tail_block<T>(x + j, t, T(-0.0)).v, tail_block<T>(y1 + j, t, T(0)).v, tail_block<T>(y2 + j, t, T(0)).v);
  }
  *d1 = fold<T>(a), *d2 = fold<T>(b);
}

// The sum's lanes folded; the extrema folded by halves as well (exact, so
// in any order but for the sign of a zero: on a tie the lower lane is kept).
template <class T>
inline void finish_stats(reg<T>* s, reg<T>* hi, reg<T>* lo, double* sum, double* max, double* min) {
  *max = double(fold_with<T>(hi, [](auto x, auto y) { return x < y ? y : x; }));
  *min = double(fold_with<T>(lo, [](auto x, auto y) { return y < x ? y : x; }));
  *sum = double(fold<T>(s));
}

// sum_max_min, and with Dot the two dot products of dot2, in one pass.
template <bool Dot, class T>
void stats_body(const T* __restrict x, const T* __restrict y1, const T* __restrict y2, int64_t n, T* d1, T* d2,
                double* sum, double* max, double* min) {
  constexpr int L = reduction_lanes<T>;
  reg<T> s[R<T>] = {}, hi[R<T>], lo[R<T>], a[R<T>] = {}, b[R<T>] = {};
  each<R<T>>([&](auto r) { hi[r] = splat<T>(T(-__builtin_inf())), lo[r] = splat<T>(T(__builtin_inf())); });
  // xs: the values summed (and multiplied); xh, xl: the same for the maximum
  // and minimum, where a tail's pads differ (null: xs's).
  const auto step = [&](const T* xs, const T* xh, const T* xl, const T* y1p, const T* y2p) {
    each<R<T>>([&](auto r) {
      const reg<T> v = once<T>(load(xs + r * W<T>));
      const reg<T> vh = xh ? load(xh + r * W<T>) : v, vl = xl ? load(xl + r * W<T>) : v;
      s[r] += v;
      // (m < v ? v : m) is std::max(m, v): a NaN v is never taken.
      hi[r] = hi[r] < vh ? vh : hi[r];
      lo[r] = vl < lo[r] ? vl : lo[r];
      if constexpr (Dot) a[r] = fmav<T>(v, load(y1p + r * W<T>), a[r]), b[r] = fmav<T>(v, load(y2p + r * W<T>), b[r]);
    });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) {
    // A's rows come from L3 or memory (the checks read A once, row after
    // row): each line is asked for 2 KiB ahead, which runs into the next row.
    for (int b = 0; b < L * int(sizeof(T)); b += 64) __builtin_prefetch(reinterpret_cast<const char*>(x + j) + 2048 + b);
    step(x + j, nullptr, nullptr, Dot ? y1 + j : nullptr, Dot ? y2 + j : nullptr);
  }
  if (j < n) {
    const int t = int(n - j);
    const tail_block<T> xs(x + j, t, T(-0.0)), xh(x + j, t, T(-__builtin_inf())), xl(x + j, t, T(__builtin_inf()));
    if constexpr (Dot) step(xs.v, xh.v, xl.v, tail_block<T>(y1 + j, t, T(0)).v, tail_block<T>(y2 + j, t, T(0)).v);
    else step(xs.v, xh.v, xl.v, nullptr, nullptr);
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
  // cp: the block's column sums, or null for a tail (added element by element).
  const auto step = [&](const T* xp, const T* wp, T* cp) {
    each<R<T>>([&](auto r) {
      const reg<T> v = once<T>(load(xp + r * W<T>));
      a[r] += v, b[r] = fmav<T>(load(wp + r * W<T>), v, b[r]);
      if (cp) store(cp + r * W<T>, load(cp + r * W<T>) + v);
    });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) step(x + j, w + j, col + j);
  if (j < n) {
    const int t = int(n - j);
    step(tail_block<T>(x + j, t, T(-0.0)).v, tail_block<T>(w + j, t, T(0)).v, nullptr);
    for (int l = 0; l < t; ++l) col[j + l] += x[j + l];
  }
  *s = fold<T>(a), *sw = fold<T>(b);
}

template <class T>
void sums_and_column2(const T* __restrict x, int64_t ld, const T* __restrict w, int64_t n, T* s, T* sw, T* __restrict col) {
  constexpr int L = reduction_lanes<T>;
  const T* const x1 = x + ld;
  reg<T> a0[R<T>] = {}, b0[R<T>] = {}, a1[R<T>] = {}, b1[R<T>] = {};
  const auto step = [&](const T* p0, const T* p1, const T* wp, T* cp) {
    each<R<T>>([&](auto r) {
      const reg<T> v0 = once<T>(load(p0 + r * W<T>)), v1 = once<T>(load(p1 + r * W<T>)), u = once<T>(load(wp + r * W<T>));
      a0[r] += v0, b0[r] = fmav<T>(u, v0, b0[r]);
      a1[r] += v1, b1[r] = fmav<T>(u, v1, b1[r]);
      if (cp) store(cp + r * W<T>, (load(cp + r * W<T>) + v0) + v1);
    });
  };
  int64_t j = 0;
  for (; j + L <= n; j += L) step(x + j, x1 + j, w + j, col ? col + j : nullptr);
  if (j < n) {
    const int t = int(n - j);
    step(tail_block<T>(x + j, t, T(-0.0)).v, tail_block<T>(x1 + j, t, T(-0.0)).v, tail_block<T>(w + j, t, T(0)).v, nullptr);
    if (col)
      for (int l = 0; l < t; ++l) col[j + l] = (col[j + l] + x[j + l]) + x1[j + l];
  }
  s[0] = fold<T>(a0), sw[0] = fold<T>(b0), s[1] = fold<T>(a1), sw[1] = fold<T>(b1);
}

template <class T>
void axpy2_rows(const T* __restrict a1, const T* __restrict a2, const T* __restrict x, int64_t ld, int64_t rows, int64_t n,
                T* __restrict y1, T* __restrict y2) {
  // V registers of columns down the rows, y1 and y2 in registers: four at
  // once (eight FMA chains side by side: one register's two chains wait on
  // the FMA's latency, row after row), then one.
  int64_t j = 0;
  const auto strips = [&]<int V>(std::integral_constant<int, V>) {
    for (; j + V * W<T> <= n; j += V * W<T>) {
      reg<T> s1[V], s2[V];
      each<V>([&](auto q) { s1[q] = load(y1 + j + q * W<T>), s2[q] = load(y2 + j + q * W<T>); });
      for (int64_t r = 0; r < rows; ++r) {
        const reg<T> c1 = splat<T>(a1[r]), c2 = splat<T>(a2[r]);
        each<V>([&](auto q) {
          const reg<T> v = load(x + r * ld + j + q * W<T>);
          s1[q] = fmav<T>(c1, v, s1[q]), s2[q] = fmav<T>(c2, v, s2[q]);
        });
      }
      each<V>([&](auto q) { store(y1 + j + q * W<T>, s1[q]), store(y2 + j + q * W<T>, s2[q]); });
    }
  };
  strips(std::integral_constant<int, 4>{});
  strips(std::integral_constant<int, 1>{});
  for (; j < n; ++j)
    for (int64_t r = 0; r < rows; ++r) y1[j] = fma_of(a1[r], x[r * ld + j], y1[j]), y2[j] = fma_of(a2[r], x[r * ld + j], y2[j]);
}

// column_sum_max_min over a few rows: a strip of V registers of fp64
// columns at a time down the rows, its sums and extrema in registers.
template <class T>
void column_block_sum_max_min(const T* __restrict x, int64_t ld, int64_t rows, int64_t n, double* __restrict sum,
                              double* __restrict mx, double* __restrict mn) {
  constexpr int D = W<double>, V = 4;
  const auto widen = [](const T* p) {
    if constexpr (sizeof(T) == 8) {
      return load(p);
    } else {
#if SDC_VECTOR_BYTES == 64  // one conversion (GCC's generic one splits it in two and joins the halves)
      return (reg<double>)_mm512_cvtps_pd(_mm256_loadu_ps(p));
#elif SDC_VECTOR_BYTES == 32
      return (reg<double>)_mm256_cvtps_pd(_mm_loadu_ps(p));
#else
      lanes<T, D> v;
      __builtin_memcpy(&v, p, sizeof v);
      return __builtin_convertvector(v, reg<double>);
#endif
    }
  };
  int64_t j = 0;
  for (; j + V * D <= n; j += V * D) {
    reg<double> s[V], hi[V], lo[V];
    each<V>([&](auto q) { s[q] = load(sum + j + q * D), hi[q] = load(mx + j + q * D), lo[q] = load(mn + j + q * D); });
    for (int64_t r = 0; r < rows; ++r)
      each<V>([&](auto q) {
        const reg<double> v = widen(x + r * ld + j + q * D);
        s[q] += v;
        hi[q] = hi[q] < v ? v : hi[q];  // std::max(hi, v)
        lo[q] = v < lo[q] ? v : lo[q];  // std::min(lo, v)
      });
    each<V>([&](auto q) { store(sum + j + q * D, s[q]), store(mx + j + q * D, hi[q]), store(mn + j + q * D, lo[q]); });
  }
  for (; j < n; ++j)
    for (int64_t r = 0; r < rows; ++r) {
      const double v = double(x[r * ld + j]);
      sum[j] += v, mx[j] = mx[j] < v ? v : mx[j], mn[j] = v < mn[j] ? v : mn[j];
    }
}

// Eight rows at a time (eight sequential streams through memory), the three
// arrays read and written once per eight rows instead of per row. (Strips
// down every row at once walk a large matrix a column at a time: encoding
// went from 4.4 to 7.4 % of the GEMM at n = 4096.)
template <class T>
void column_sum_max_min(const T* __restrict x, int64_t ld, int64_t rows, int64_t n, double* __restrict sum,
                        double* __restrict mx, double* __restrict mn) {
  constexpr int64_t block = 8;
  for (int64_t r0 = 0; r0 < rows; r0 += block)
    column_block_sum_max_min(x + r0 * ld, ld, rows - r0 < block ? rows - r0 : block, n, sum, mx, mn);
}

}  // namespace

extern const reduction_kernels<float> kernels_f32;
extern const reduction_kernels<double> kernels_f64;
const reduction_kernels<float> kernels_f32 = {&sum<float>,
                                              &sum_and_weighted<float>,
                                              &dot2<float>,
                                              &sum_max_min<float>,
                                              &dot2_sum_max_min<float>,
                                              &sums_and_column<float>,
                                              &sums_and_column2<float>,
                                              &axpy2_rows<float>,
                                              &column_sum_max_min<float>};
const reduction_kernels<double> kernels_f64 = {&sum<double>,
                                               &sum_and_weighted<double>,
                                               &dot2<double>,
                                               &sum_max_min<double>,
                                               &dot2_sum_max_min<double>,
                                               &sums_and_column<double>,
                                               &sums_and_column2<double>,
                                               &axpy2_rows<double>,
                                               &column_sum_max_min<double>};

}  // namespace sdc::SDC_KERNEL_NS
