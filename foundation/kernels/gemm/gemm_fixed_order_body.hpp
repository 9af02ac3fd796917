// The body of foundation/kernels/gemm/gemm_dispatch.hpp's kernels, compiled once per
// SIMD level by gemm_fixed_order_{scalar,avx2,avx512}.cpp with that level's
// flags (CMakeLists.txt) and inside its namespace SDC_KERNEL_NS; simd.hpp
// picks the registers from the flags. Loop nest after GotoBLAS/BLIS: jc (NC
// columns) > pc (KC depth, packed B) > ic (MC rows, packed A) > jr (NR) > ir
// (MR) > micro-kernel. K is never split across two accumulators, so each
// element's sum runs over k in order exactly as in gemm_reference; the
// micro-kernel carries the accumulator from one KC chunk to the next through
// C, which holds it at full accumulator precision. No library templates and
// no allocation here: an inline function shared between the levels' files
// could be kept by the linker in its AVX-512 copy for every level.
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including gemm_fixed_order_body.hpp"
#endif
#include "foundation/kernels/gemm/gemm_dispatch.hpp"
#include "foundation/kernels/gemm/simd.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {

template <class T>
inline T min_of(T a, T b) { return b < a ? b : a; }
template <class T>
inline T max_of(T a, T b) { return a < b ? b : a; }

constexpr int k_mr = 6;
constexpr int64_t k_mc = 96;
constexpr int64_t k_kc = 256;
constexpr int64_t k_nc = 1024;

template <class T>
struct tiling {
  using v = simd::ops<T>;
  static constexpr int nr = 2 * v::width;
};

// Packs rows [i0, i0+mc) x depth [p0, p0+kc) of A into MR-row panels, k-major.
template <class T>
void pack_a(const T* A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, T* out) {
  for (int64_t ir = 0; ir < mc; ir += k_mr) {
    const int rows = int(min_of<int64_t>(k_mr, mc - ir));
    for (int64_t p = 0; p < kc; ++p)
      for (int r = 0; r < k_mr; ++r) *out++ = r < rows ? A[(i0 + ir + r) * lda + p0 + p] : T(0);
  }
}

// Packs depth [p0, p0+kc) x columns [j0, j0+nc) of B into NR-column panels, k-major.
template <class T>
void pack_b(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) {
  constexpr int nr = tiling<T>::nr;
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int cols = int(min_of<int64_t>(nr, nc - jr));
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = B + (p0 + p) * ldb + j0 + jr;
      for (int c = 0; c < nr; ++c) *out++ = c < cols ? src[c] : T(0);
    }
  }
}

// MR x NR tile: C (ldc) += or = the packed panels' product over kc, in order.
// block == 0: sequential. block > 0: the chunk starts on a block boundary and
// holds whole blocks (the last may be short only at the end of K).
template <class T>
void micro_kernel(int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc, bool first, int64_t block) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  typename v::reg acc[k_mr][2];
#pragma GCC unroll 6
  for (int r = 0; r < k_mr; ++r) {
    acc[r][0] = first ? v::zero() : v::load(c + r * ldc);
    acc[r][1] = first ? v::zero() : v::load(c + r * ldc + w);
  }
  if (block == 0) {
    for (int64_t p = 0; p < kc; ++p) {
      const typename v::reg b0 = v::load(bp + p * 2 * w), b1 = v::load(bp + p * 2 * w + w);
#pragma GCC unroll 6
      for (int r = 0; r < k_mr; ++r) {
        const typename v::reg a = v::set1(ap[p * k_mr + r]);
        acc[r][0] = v::fma(a, b0, acc[r][0]);
        acc[r][1] = v::fma(a, b1, acc[r][1]);
      }
    }
  } else {
    for (int64_t p0 = 0; p0 < kc; p0 += block) {
      typename v::reg part[k_mr][2];
#pragma GCC unroll 6
      for (int r = 0; r < k_mr; ++r) part[r][0] = part[r][1] = v::zero();
      const int64_t pend = min_of(kc, p0 + block);
      for (int64_t p = p0; p < pend; ++p) {
        const typename v::reg b0 = v::load(bp + p * 2 * w), b1 = v::load(bp + p * 2 * w + w);
#pragma GCC unroll 6
        for (int r = 0; r < k_mr; ++r) {
          const typename v::reg a = v::set1(ap[p * k_mr + r]);
          part[r][0] = v::fma(a, b0, part[r][0]);
          part[r][1] = v::fma(a, b1, part[r][1]);
        }
      }
#pragma GCC unroll 6
      for (int r = 0; r < k_mr; ++r) {
        acc[r][0] = v::add(acc[r][0], part[r][0]);
        acc[r][1] = v::add(acc[r][1], part[r][1]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < k_mr; ++r) {
    v::store(c + r * ldc, acc[r][0]);
    v::store(c + r * ldc + w, acc[r][1]);
  }
}

// KC must hold whole k-blocks so that block boundaries never straddle a chunk.
inline int64_t kc_for(int64_t block) { return block == 0 ? k_kc : max_of<int64_t>(1, k_kc / block) * block; }

template <class T>
int64_t blocked_workspace(int64_t block) {
  return kc_for(block) * (k_nc + tiling<T>::nr) + kc_for(block) * (k_mc + k_mr);
}

template <class T>
void blocked_gemm(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work) {
  constexpr int nr = tiling<T>::nr;
  const int64_t kc_max = kc_for(block);
  T* const bpack = work;
  T* const apack = work + kc_max * (k_nc + nr);
  T tile[k_mr * nr];
  for (int64_t jc = 0; jc < s.n; jc += k_nc) {
    const int64_t nc = min_of(k_nc, s.n - jc);
    for (int64_t pc = 0; pc < s.k; pc += kc_max) {
      const int64_t kc = min_of(kc_max, s.k - pc);
      const bool first = pc == 0;
      pack_b(B, s.n, pc, kc, jc, nc, bpack);
      for (int64_t ic = 0; ic < s.m; ic += k_mc) {
        const int64_t mc = min_of(k_mc, s.m - ic);
        pack_a(A, s.k, ic, mc, pc, kc, apack);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int cols = int(min_of<int64_t>(nr, nc - jr));
          const T* bp = bpack + (jr / nr) * kc * nr;
          for (int64_t ir = 0; ir < mc; ir += k_mr) {
            const int rows = int(min_of<int64_t>(k_mr, mc - ir));
            const T* ap = apack + (ir / k_mr) * kc * k_mr;
            T* c = C + (ic + ir) * s.n + jc + jr;
            if (rows == k_mr && cols == nr) {
              micro_kernel(kc, ap, bp, c, s.n, first, block);
              continue;
            }
            // Edge tile: run on a full local tile, copy the valid part back.
            for (int e = 0; e < k_mr * nr; ++e) tile[e] = T(0);
            if (!first)
              for (int r = 0; r < rows; ++r)
                for (int cc = 0; cc < cols; ++cc) tile[r * nr + cc] = c[r * s.n + cc];
            micro_kernel(kc, ap, bp, tile, nr, first, block);
            for (int r = 0; r < rows; ++r)
              for (int cc = 0; cc < cols; ++cc) c[r * s.n + cc] = tile[r * nr + cc];
          }
        }
      }
    }
  }
}

// Pairwise order: products rounded, then merged as a binary counter does, which
// builds the same tree as the reference's recursive split (left part = largest
// power of two below n). Vectorized across a strip of columns.
template <class T>
void pairwise_gemm(const T* A, const T* B, T* C, gemm_shape s, T* work) {
  constexpr int64_t strip = k_pairwise_strip;
  T* const stack = work;
  T* const val = work + k_pairwise_levels * strip;
  for (int64_t i = 0; i < s.m; ++i) {
    const T* a = A + i * s.k;
    for (int64_t j0 = 0; j0 < s.n; j0 += strip) {
      const int64_t w = min_of(strip, s.n - j0);
      int top = 0;
      for (int64_t k = 0; k < s.k; ++k) {
        const T* b = B + k * s.n + j0;
        const T ak = a[k];
        for (int64_t c = 0; c < w; ++c) val[c] = ak * b[c];
        for (uint64_t cnt = uint64_t(k) + 1; (cnt & 1) == 0; cnt >>= 1) {
          --top;
          const T* left = stack + top * strip;
          for (int64_t c = 0; c < w; ++c) val[c] = left[c] + val[c];
        }
        for (int64_t c = 0; c < w; ++c) stack[top * strip + c] = val[c];
        ++top;
      }
      if (top == 0) {
        for (int64_t c = 0; c < w; ++c) C[i * s.n + j0 + c] = T(0);
        continue;
      }
      for (int64_t c = 0; c < w; ++c) val[c] = stack[(top - 1) * strip + c];
      for (int l = top - 2; l >= 0; --l) {
        const T* left = stack + l * strip;
        for (int64_t c = 0; c < w; ++c) val[c] = left[c] + val[c];
      }
      for (int64_t c = 0; c < w; ++c) C[i * s.n + j0 + c] = val[c];
    }
  }
}

}  // namespace

extern const fixed_order_kernels<float> gemm_kernels_f32;
extern const fixed_order_kernels<double> gemm_kernels_f64;
const fixed_order_kernels<float> gemm_kernels_f32 = {&blocked_workspace<float>, &blocked_gemm<float>, &pairwise_gemm<float>};
const fixed_order_kernels<double> gemm_kernels_f64 = {&blocked_workspace<double>, &blocked_gemm<double>, &pairwise_gemm<double>};

}  // namespace sdc::SDC_KERNEL_NS
