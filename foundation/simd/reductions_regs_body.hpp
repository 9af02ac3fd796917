// The registers and lane operations of foundation/simd/reductions_body.hpp's
// kernels, compiled once per SIMD level inside its SDC_KERNEL_NS (the rules
// reductions_body.hpp's opening lists hold here: only builtins and
// intrinsics, constant indices into the accumulator arrays).
#pragma once
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including reductions_regs_body.hpp"
#endif
#include <utility>

#include "foundation/simd/intrinsics.hpp"
#include "foundation/simd/reductions.hpp"

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

// f(r) for r = 0 .. N-1, r a compile-time constant.
template <int N, class F>
inline void each(F&& f) {
  [&]<int... r>(std::integer_sequence<int, r...>) { (f(std::integral_constant<int, r>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

template <class T>
inline reg<T> load(const T* p) {
  reg<T> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store(T* p, reg<T> v) { __builtin_memcpy(p, &v, sizeof v); }
// A value read from memory once, kept in a register: GCC 12 otherwise folds
// the load into each instruction that uses it (x read two or three times
// over), and on this project's AMD EPYC machines loads, not arithmetic,
// bound these kernels. An empty asm the value passes through; no code.
template <class T>
inline reg<T> once(reg<T> v) {
#if SDC_VECTOR_BYTES == 64
  asm("" : "+v"(v));
#else
  asm("" : "+x"(v));
#endif
  return v;
}
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

// A register of N lanes of T (N a power of two, N * sizeof(T) <= the level's
// width): the halves of a register as the fold takes them.
template <class T, int N>
struct half_of {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
template <class T, int N>
using lanes = typename half_of<T, N>::type;

// The N lanes of v folded by halves (lane l takes lane l + N/2, then N/4,
// ... 1: lane l = op(lane l, lane l + h)) in registers: each step takes the
// lower and upper halves as registers, with no round trip through memory (a
// store of the register and loads of its parts: a stall on store-to-load
// forwarding at every step).
template <class T, int N, class Op>
inline T fold_lanes(lanes<T, N> v, Op op) {
  if constexpr (N == 1) {
    return v[0];
  } else if constexpr (N == 2) {
    return op(v[0], v[1]);
  } else if constexpr (N == 4) {
    return fold_lanes<T, 2>(lanes<T, 2>(op(__builtin_shufflevector(v, v, 0, 1), __builtin_shufflevector(v, v, 2, 3))), op);
  } else if constexpr (N == 8) {
    return fold_lanes<T, 4>(
        lanes<T, 4>(op(__builtin_shufflevector(v, v, 0, 1, 2, 3), __builtin_shufflevector(v, v, 4, 5, 6, 7))), op);
  } else {
    static_assert(N == 16, "a register holds 1 to 16 lanes");
    return fold_lanes<T, 8>(lanes<T, 8>(op(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                                           __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15))),
                            op);
  }
}

// The lanes of R registers folded by halves with op: while the halves span
// whole registers, as register operations (the same elementwise ones), then
// within register 0. For the sums, op is +, and which payload a sum of two
// NaNs carries is the compiler's choice of operand order (C++ does not fix
// it), so a NaN result is NaN at every level but its payload may differ;
// every other result has the same bits.
template <class T, int H = R<T> / 2, class Op>
inline T fold_with(reg<T>* regs, Op op) {
  if constexpr (H == 0) {
    return fold_lanes<T, W<T>>(regs[0], op);
  } else {
    each<H>([&](auto r) { regs[r] = op(regs[r], regs[r + H]); });
    return fold_with<T, H / 2>(regs, op);
  }
}
template <class T>
inline T fold(reg<T>* regs) {
  return fold_with<T>(regs, [](auto x, auto y) { return x + y; });
}

// The tail of a row (t < L elements from p) as a full lane block of L
// values, the rest `pad`: the main loop's body then runs once more on it
// with the accumulators still in registers (a tail loop that indexes them
// element by element makes the compiler keep them in memory throughout).
// The pads are chosen to leave every accumulator's bits as they were: -0
// for a summed value (a + -0 is a, for every a, -0 and NaN included), +0
// for the weight it multiplies (+0 * -0 = -0, so an FMA adds -0 too), and
// -inf / +inf for the maximum / minimum.
template <class T>
struct tail_block {
  T v[reduction_lanes<T>];
  tail_block(const T* p, int t, T pad) {
    for (int l = 0; l < reduction_lanes<T>; ++l) v[l] = l < t ? p[l] : pad;
  }
};

}  // namespace
}  // namespace sdc::SDC_KERNEL_NS
