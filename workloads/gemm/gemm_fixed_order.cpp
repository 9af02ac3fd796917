// Cache-blocked, register-tiled GEMM with a fixed per-element accumulation order.
// Loop nest after GotoBLAS/BLIS: jc (NC columns) > pc (KC depth, packed B) >
// ic (MC rows, packed A) > jr (NR) > ir (MR) > micro-kernel. K is never split
// across two accumulators, so each element's sum runs over k in order exactly as
// in gemm_reference; the micro-kernel carries the accumulator from one KC chunk
// to the next through C, which holds it at full accumulator precision.
#include <algorithm>
#include <vector>

#include "workloads/gemm/gemm_kernels.hpp"
#include "workloads/gemm/simd.hpp"

namespace sdc {
namespace {

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
    const int rows = int(std::min<int64_t>(k_mr, mc - ir));
    for (int64_t p = 0; p < kc; ++p)
      for (int r = 0; r < k_mr; ++r) *out++ = r < rows ? A[(i0 + ir + r) * lda + p0 + p] : T(0);
  }
}

// Packs depth [p0, p0+kc) x columns [j0, j0+nc) of B into NR-column panels, k-major.
template <class T>
void pack_b(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) {
  constexpr int nr = tiling<T>::nr;
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int cols = int(std::min<int64_t>(nr, nc - jr));
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
      const int64_t pend = std::min(kc, p0 + block);
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

template <class T>
void blocked_gemm(const T* A, const T* B, T* C, gemm_shape s, int64_t block) {
  constexpr int nr = tiling<T>::nr;
  // KC must hold whole k-blocks so that block boundaries never straddle a chunk.
  const int64_t kc_max = block == 0 ? k_kc : std::max<int64_t>(1, k_kc / block) * block;
  thread_local std::vector<T> bpack, apack;
  bpack.resize(size_t(kc_max * (k_nc + nr)));
  apack.resize(size_t(kc_max * (k_mc + k_mr)));
  T tile[k_mr * nr];
  for (int64_t jc = 0; jc < s.n; jc += k_nc) {
    const int64_t nc = std::min(k_nc, s.n - jc);
    for (int64_t pc = 0; pc < s.k; pc += kc_max) {
      const int64_t kc = std::min(kc_max, s.k - pc);
      const bool first = pc == 0;
      pack_b(B, s.n, pc, kc, jc, nc, bpack.data());
      for (int64_t ic = 0; ic < s.m; ic += k_mc) {
        const int64_t mc = std::min(k_mc, s.m - ic);
        pack_a(A, s.k, ic, mc, pc, kc, apack.data());
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int cols = int(std::min<int64_t>(nr, nc - jr));
          const T* bp = bpack.data() + (jr / nr) * kc * nr;
          for (int64_t ir = 0; ir < mc; ir += k_mr) {
            const int rows = int(std::min<int64_t>(k_mr, mc - ir));
            const T* ap = apack.data() + (ir / k_mr) * kc * k_mr;
            T* c = C + (ic + ir) * s.n + jc + jr;
            if (rows == k_mr && cols == nr) {
              micro_kernel(kc, ap, bp, c, s.n, first, block);
              continue;
            }
            // Edge tile: run on a full local tile, copy the valid part back.
            std::fill(tile, tile + k_mr * nr, T(0));
            if (!first)
              for (int r = 0; r < rows; ++r) std::copy(c + r * s.n, c + r * s.n + cols, tile + r * nr);
            micro_kernel(kc, ap, bp, tile, nr, first, block);
            for (int r = 0; r < rows; ++r) std::copy(tile + r * nr, tile + r * nr + cols, c + r * s.n);
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
void pairwise_gemm(const T* A, const T* B, T* C, gemm_shape s) {
  constexpr int64_t strip = 64;
  constexpr int max_levels = 64;
  thread_local std::vector<T> stack;
  stack.resize(size_t(max_levels * strip));
  T val[strip];
  for (int64_t i = 0; i < s.m; ++i) {
    const T* a = A + i * s.k;
    for (int64_t j0 = 0; j0 < s.n; j0 += strip) {
      const int64_t w = std::min(strip, s.n - j0);
      int top = 0;
      for (int64_t k = 0; k < s.k; ++k) {
        const T* b = B + k * s.n + j0;
        const T ak = a[k];
        for (int64_t c = 0; c < w; ++c) val[c] = ak * b[c];
        for (uint64_t cnt = uint64_t(k) + 1; (cnt & 1) == 0; cnt >>= 1) {
          --top;
          const T* left = stack.data() + top * strip;
          for (int64_t c = 0; c < w; ++c) val[c] = left[c] + val[c];
        }
        std::copy(val, val + w, stack.data() + top * strip);
        ++top;
      }
      if (top == 0) {
        std::fill(C + i * s.n + j0, C + i * s.n + j0 + w, T(0));
        continue;
      }
      std::copy(stack.data() + (top - 1) * strip, stack.data() + (top - 1) * strip + w, val);
      for (int l = top - 2; l >= 0; --l) {
        const T* left = stack.data() + l * strip;
        for (int64_t c = 0; c < w; ++c) val[c] = left[c] + val[c];
      }
      std::copy(val, val + w, C + i * s.n + j0);
    }
  }
}

template <class T>
void fixed_order_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  switch (o.k) {
    case accumulation_order::kind::sequential:
    case accumulation_order::kind::openblas: blocked_gemm(A, B, C, s, 0); return;
    case accumulation_order::kind::kblock: blocked_gemm(A, B, C, s, o.block); return;
    case accumulation_order::kind::pairwise: pairwise_gemm(A, B, C, s); return;
  }
}

// C row i = A_i B: a 1 x n x k product on row i alone.
template <class T>
void row_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t i) {
  fixed_order_impl(A + i * s.k, B, C + i * s.n, gemm_shape{1, s.n, s.k}, o);
}

// C column j = A B_j: m dot products sharing B_j. Eight rows run as
// independent FMA chains side by side, each in its own element's order
// (sequential, or k-blocks with partial sums); pairwise falls back to the
// reference dot product. Bit-identical to the same column of a full product (tested).
template <class T>
void col_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t j) {
  thread_local std::vector<T> bcol;
  bcol.resize(size_t(s.k));
  for (int64_t k = 0; k < s.k; ++k) bcol[size_t(k)] = B[k * s.n + j];
  if (o.k == accumulation_order::kind::pairwise) {
    for (int64_t i = 0; i < s.m; ++i) C[i * s.n + j] = dot_in_order(A + i * s.k, 1, bcol.data(), 1, s.k, o);
    return;
  }
  constexpr int lanes = 8;
  const bool sequential = o.k != accumulation_order::kind::kblock;
  const int64_t block = sequential ? s.k : o.block;
  for (int64_t i0 = 0; i0 < s.m; i0 += lanes) {
    const int rows = int(std::min<int64_t>(lanes, s.m - i0));
    T total[lanes] = {}, part[lanes];
    for (int64_t k0 = 0; k0 < s.k; k0 += block) {
      for (int r = 0; r < lanes; ++r) part[r] = 0;
      const int64_t k1 = std::min(s.k, k0 + block);
      for (int64_t k = k0; k < k1; ++k)
        for (int r = 0; r < rows; ++r) part[r] = std::fma(A[(i0 + r) * s.k + k], bcol[size_t(k)], part[r]);
      // Sequential order is one chain: its partial is the result. kblock adds
      // each partial into the total, as the reference does (0 + -0 is +0).
      for (int r = 0; r < rows; ++r) total[r] = sequential ? part[r] : total[r] + part[r];
    }
    for (int r = 0; r < rows; ++r) C[(i0 + r) * s.n + j] = total[r];
  }
}

}  // namespace

void gemm_row_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_row_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_col_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}
void gemm_col_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}

void gemm_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}
void gemm_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}

}  // namespace sdc
