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
#include "foundation/simd/reductions.hpp"

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

// ---- The checked kernel's sums (gemm_check_sums.hpp) ----------------------
// Rows of 8 per block of a column cascade (column_cascade.hpp's
// k_block_rows; gemm_check_sums.cpp asserts they agree).
constexpr int64_t k_cascade_rows = 8;

// A finished block of a column cascade, `blk` for columns [j, j + W), is
// merged as column_cascade::row_done merges it: `before` blocks were merged
// earlier, so the pending levels are the set bits of `before` (a binary
// counter): each is added in (level + block) and freed, then the first free
// level takes the sum.
template <class T>
inline void cascade_merge(T* c, int64_t n, int64_t j, typename simd::ops<T>::reg blk, int64_t before) {
  using v = simd::ops<T>;
  int l = 0;
  for (; (before >> l) & 1; ++l) blk = v::add(v::load(c + (1 + l) * n + j), blk);
  v::store(c + (1 + l) * n + j, blk);
  v::store(c + j, v::zero());
}
template <class T>
inline void cascade_merge_one(T* c, int64_t n, int64_t j, int64_t before) {
  T blk = c[j];
  int l = 0;
  for (; (before >> l) & 1; ++l) blk = c[(1 + l) * n + j] + blk;
  c[(1 + l) * n + j] = blk;
  c[j] = T(0);
}
inline bool block_ends(int64_t r, int64_t rows) { return (r + 1) % k_cascade_rows == 0 || r + 1 == rows; }
template <bool B>
struct with_stats {
  static constexpr bool value = B;
};

// Rows [i0, i0 + mc) of A over depth [p0, p0 + kc): A_i (B r1), A_i (B r2)
// and the row statistics, into each row's lanes (lane k mod L, in order).
// Where the chunk starts on a lane boundary the row's lanes live in
// registers for the chunk; the rest (a depth tail, or chunks of kblock
// orders that do not start on one) go element by element.
template <class T>
void row_refs_block(const T* A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  using reg = typename v::reg;
  constexpr int w = v::width;
  constexpr int L = reduction_lanes<T>;
  constexpr int R = L / w;
  const reg neg = v::set1(T(-__builtin_inf())), pos = v::set1(T(__builtin_inf()));
  for (int64_t i = i0; i < i0 + mc; ++i) {
    const T* a = A + i * lda;
    T* r1 = io.a_ref1 + i * L;
    T* r2 = io.a_ref2 + i * L;
    T* sm = io.a_sum + i * L;
    T* hi = io.a_hi + i * L;
    T* lo = io.a_lo + i * L;
    int64_t k = p0;
    const int64_t end = p0 + kc;
    if (p0 % L == 0) {
      reg x1[R], x2[R], xs[R], xh[R], xl[R];
#pragma GCC unroll 64
      for (int r = 0; r < R; ++r) {  // the row's first visit: its lanes start as the separate check's registers do
        x1[r] = x2[r] = xs[r] = v::zero(), xh[r] = neg, xl[r] = pos;
        if (p0 != 0) {
          x1[r] = v::load(r1 + r * w), x2[r] = v::load(r2 + r * w), xs[r] = v::load(sm + r * w);
          xh[r] = v::load(hi + r * w), xl[r] = v::load(lo + r * w);
        }
      }
      const T* const b1 = io.br1;
      const T* const b2 = io.br2;
      // The loop twice, with and without the statistics, so neither tests the flag per element.
      auto chunks = [&](auto stats) {
        for (; k + L <= end; k += L) {
#pragma GCC unroll 64
          for (int r = 0; r < R; ++r) {
            const reg x = v::load(a + k + r * w);
            x1[r] = v::fma(x, v::load(b1 + k + r * w), x1[r]);
            x2[r] = v::fma(x, v::load(b2 + k + r * w), x2[r]);
            if constexpr (decltype(stats)::value)
              xs[r] = v::add(xs[r], x), xh[r] = v::max_keep(xh[r], x), xl[r] = v::min_keep(xl[r], x);
          }
        }
      };
      if (io.row_stats) chunks(with_stats<true>{});
      else chunks(with_stats<false>{});
#pragma GCC unroll 64
      for (int r = 0; r < R; ++r) {
        v::store(r1 + r * w, x1[r]), v::store(r2 + r * w, x2[r]), v::store(sm + r * w, xs[r]);
        v::store(hi + r * w, xh[r]), v::store(lo + r * w, xl[r]);
      }
    } else if (p0 == 0) {
      for (int l = 0; l < L; ++l) r1[l] = r2[l] = sm[l] = T(0), hi[l] = T(-__builtin_inf()), lo[l] = T(__builtin_inf());
    }
    for (; k < end; ++k) {
      const int o = int(k % L);
      const T x = a[k];
      r1[o] = simd::fma1(x, io.br1[k], r1[o]), r2[o] = simd::fma1(x, io.br2[k], r2[o]);
      if (io.row_stats) {
        sm[o] = sm[o] + x;
        if (hi[o] < x) hi[o] = x;
        if (x < lo[o]) lo[o] = x;
      }
    }
  }
}

// Packs B as pack_b does and, in the same read, adds depth [p0, p0 + kc) to
// the column references (c1 A) B_j and (c2 A) B_j of columns [j0, j0 + nc).
template <class T>
void pack_b_checked(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t K, T* out,
                    const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  constexpr int nr = tiling<T>::nr;
  const int64_t n = ldb;
  T* const r1 = io.col_r1;
  T* const r2 = io.col_r2;
  const T* const ca1 = io.ca1;
  const T* const ca2 = io.ca2;
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int cols = int(min_of<int64_t>(nr, nc - jr));
    const int64_t j = j0 + jr;
    if (cols == nr) {
      typename v::reg a0 = v::load(r1 + j), a1 = v::load(r1 + j + w);
      typename v::reg b0 = v::load(r2 + j), b1 = v::load(r2 + j + w);
      for (int64_t p = 0; p < kc; ++p) {
        const int64_t k = p0 + p;
        const T* src = B + k * ldb + j;
        const typename v::reg x0 = v::load(src), x1 = v::load(src + w);
        v::store(out, x0), v::store(out + w, x1);
        out += nr;
        const typename v::reg c1 = v::set1(ca1[k]), c2 = v::set1(ca2[k]);
        a0 = v::fma(c1, x0, a0), a1 = v::fma(c1, x1, a1), b0 = v::fma(c2, x0, b0), b1 = v::fma(c2, x1, b1);
        if (block_ends(k, K)) {
          const int64_t before = k / k_cascade_rows;
          cascade_merge<T>(r1, n, j, a0, before), cascade_merge<T>(r1, n, j + w, a1, before);
          cascade_merge<T>(r2, n, j, b0, before), cascade_merge<T>(r2, n, j + w, b1, before);
          a0 = a1 = b0 = b1 = v::zero();
        }
      }
      v::store(r1 + j, a0), v::store(r1 + j + w, a1);
      v::store(r2 + j, b0), v::store(r2 + j + w, b1);
      continue;
    }
    for (int64_t p = 0; p < kc; ++p) {
      const int64_t k = p0 + p;
      const T* src = B + k * ldb + j;
      for (int c = 0; c < nr; ++c) *out++ = c < cols ? src[c] : T(0);
      for (int c = 0; c < cols; ++c) {
        r1[j + c] = simd::fma1(ca1[k], src[c], r1[j + c]);
        r2[j + c] = simd::fma1(ca2[k], src[c], r2[j + c]);
        if (block_ends(k, K)) {
          cascade_merge_one(r1, n, j + c, k / k_cascade_rows);
          cascade_merge_one(r2, n, j + c, k / k_cascade_rows);
        }
      }
    }
  }
}

// A finished rows x cols tile of C at (i0, j0), row stride ldc: its rows'
// sums C_i r1, C_i r2 (lane j mod L) and its share of the column sums.
template <class T>
void tile_sums(const T* c, int64_t ldc, int64_t i0, int64_t j0, int rows, int cols, int64_t M, int64_t N,
               const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  constexpr int nr = tiling<T>::nr;
  constexpr int L = reduction_lanes<T>;
  const T* const wn = io.wn;
  T* const col = io.col_c1;
  const bool columns = io.columns;
  for (int r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    const T* x = c + r * ldc;
    T* s1 = io.c_s1 + i * L;
    T* s2 = io.c_s2 + i * L;
    if (j0 == 0)  // the row's first tile
      for (int l = 0; l < L; l += w) v::store(s1 + l, v::zero()), v::store(s2 + l, v::zero());
    if (cols == nr) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const int64_t j = j0 + h * w;
        const int o = int(j % L);
        const typename v::reg xv = v::load(x + h * w);
        v::store(s1 + o, v::add(v::load(s1 + o), xv));
        v::store(s2 + o, v::fma(v::load(wn + j), xv, v::load(s2 + o)));
        if (columns) v::store(col + j, v::add(v::load(col + j), xv));
      }
      if (columns && block_ends(i, M))
        for (int h = 0; h < 2; ++h) cascade_merge<T>(col, N, j0 + h * w, v::load(col + j0 + h * w), i / k_cascade_rows);
      continue;
    }
    for (int cc = 0; cc < cols; ++cc) {
      const int64_t j = j0 + cc;
      const int o = int(j % L);
      s1[o] = s1[o] + x[cc];
      s2[o] = simd::fma1(wn[j], x[cc], s2[o]);
      if (columns) {
        col[j] = col[j] + x[cc];
        if (block_ends(i, M)) cascade_merge_one(col, N, j, i / k_cascade_rows);
      }
    }
  }
}

template <class T, bool Checked>
void blocked_gemm_t(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work, const check_sums_io<T>* io) {
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
      [[maybe_unused]] const bool last = pc + kc == s.k;
      if constexpr (Checked) {
        if (io->columns) pack_b_checked(B, s.n, pc, kc, jc, nc, s.k, bpack, *io);
        else pack_b(B, s.n, pc, kc, jc, nc, bpack);
      } else {
        pack_b(B, s.n, pc, kc, jc, nc, bpack);
      }
      for (int64_t ic = 0; ic < s.m; ic += k_mc) {
        const int64_t mc = min_of(k_mc, s.m - ic);
        pack_a(A, s.k, ic, mc, pc, kc, apack);
        if constexpr (Checked)
          if (jc == 0) row_refs_block(A, s.k, ic, mc, pc, kc, *io);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int cols = int(min_of<int64_t>(nr, nc - jr));
          const T* bp = bpack + (jr / nr) * kc * nr;
          for (int64_t ir = 0; ir < mc; ir += k_mr) {
            const int rows = int(min_of<int64_t>(k_mr, mc - ir));
            const T* ap = apack + (ir / k_mr) * kc * k_mr;
            T* c = C + (ic + ir) * s.n + jc + jr;
            if (rows == k_mr && cols == nr) {
              micro_kernel(kc, ap, bp, c, s.n, first, block);
              if constexpr (Checked)
                if (last) tile_sums(c, s.n, ic + ir, jc + jr, rows, cols, s.m, s.n, *io);
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
            if constexpr (Checked)
              if (last) tile_sums(tile, nr, ic + ir, jc + jr, rows, cols, s.m, s.n, *io);
          }
        }
      }
    }
  }
}

template <class T>
void blocked_gemm(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work) {
  blocked_gemm_t<T, false>(A, B, C, s, block, work, nullptr);
}
template <class T>
void blocked_gemm_checked(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work, const check_sums_io<T>& io) {
  blocked_gemm_t<T, true>(A, B, C, s, block, work, &io);
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
const fixed_order_kernels<float> gemm_kernels_f32 = {&blocked_workspace<float>, &blocked_gemm<float>, &pairwise_gemm<float>,
                                                     &blocked_gemm_checked<float>};
const fixed_order_kernels<double> gemm_kernels_f64 = {&blocked_workspace<double>, &blocked_gemm<double>, &pairwise_gemm<double>,
                                                      &blocked_gemm_checked<double>};

}  // namespace sdc::SDC_KERNEL_NS
