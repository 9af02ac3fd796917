// The checked kernel's sums (gemm_check_sums.hpp): taken as the fixed-order
// GEMM packs A and B and as each tile of C leaves the micro-kernel, in the
// separate check's own orders. Part of gemm_fixed_order_body.hpp (compiled
// once per SIMD level inside SDC_KERNEL_NS).
#pragma once
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including gemm_check_sums_body.hpp"
#endif
#include "foundation/kernels/gemm/gemm_tile_body.hpp"
#include "foundation/simd/reductions.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {

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

// Row i of A over depth [p0, p0 + kc) (a: its element p0), copied to `out`
// as pack_a copies it, and in the same read A_i (B r1), A_i (B r2) and the
// row statistics, into the row's lanes (lane k mod L, in order). Where the
// chunk starts on a lane boundary the lanes live in registers for the chunk;
// the rest (a depth tail, or chunks of kblock orders that do not start on
// one) go element by element.
template <class T>
void pack_row_checked(const T* a, const T* ahead, int64_t i, int64_t p0, int64_t kc, T* out, const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  using reg = typename v::reg;
  constexpr int w = v::width;
  constexpr int L = reduction_lanes<T>;
  constexpr int R = L / w;
  const reg neg = v::set1(T(-__builtin_inf())), pos = v::set1(T(__builtin_inf()));
  T* r1 = io.a_ref1 + i * L;
  T* r2 = io.a_ref2 + i * L;
  T* sm = io.a_sum + i * L;
  T* hi = io.a_hi + i * L;
  T* lo = io.a_lo + i * L;
  int64_t p = 0;
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
    const T* const b1 = io.br1 + p0;
    const T* const b2 = io.br2 + p0;
    // The loop twice, with and without the statistics, so neither tests the flag per element.
    auto chunks = [&](auto stats) {
      for (; p + L <= kc; p += L) {
#pragma GCC unroll 64
        for (int r = 0; r < R; ++r) {
          prefetch_line(ahead + p + r * w);
          const reg x = v::load(a + p + r * w);
          v::store(out + p + r * w, x);
          x1[r] = v::fma(x, v::load(b1 + p + r * w), x1[r]);
          x2[r] = v::fma(x, v::load(b2 + p + r * w), x2[r]);
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
  for (; p < kc; ++p) {
    const int64_t k = p0 + p;
    const int o = int(k % L);
    const T x = a[p];
    out[p] = x;
    r1[o] = simd::fma1(x, io.br1[k], r1[o]), r2[o] = simd::fma1(x, io.br2[k], r2[o]);
    if (io.row_stats) {
      sm[o] = sm[o] + x;
      if (hi[o] < x) hi[o] = x;
      if (x < lo[o]) lo[o] = x;
    }
  }
}

// pack_a, taking each row's references and statistics as it copies it
// (pack_row_checked), so that no element of A is read twice from memory.
template <class T>
void pack_a_checked(const T* A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int64_t stride, T* out,
                    const check_sums_io<T>& io) {
  if (io.a_row) {  // K in one chunk: each whole row to the caller, read again while in L1
    for (int64_t ir = 0; ir < mc; ir += k_mr, out += k_mr * stride) {
      const int64_t rows = min_of<int64_t>(k_mr, mc - ir);
      pack_a(A, lda, i0 + ir, rows, p0, kc, stride, out);
      for (int64_t r = 0; r < rows; ++r) io.a_row(io.ctx, i0 + ir + r, A + (i0 + ir + r) * lda + p0);
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += k_mr, out += k_mr * stride) {
    const int rows = int(min_of<int64_t>(k_mr, mc - ir));
    for (int r = 0; r < k_mr; ++r) {
      T* o = out + r * stride;
      const int64_t i = i0 + ir + r;
      if (r < rows) pack_row_checked(A + i * lda + p0, A + (i + k_ahead_a) * lda + p0, i, p0, kc, o, io);
      else
        for (int64_t p = 0; p < kc; ++p) o[p] = T(0);
    }
  }
}

// Packs B as pack_b does (row by row of B) and, in the same read, adds depth
// [p0, p0 + kc) to the column references (c1 A) B_j and (c2 A) B_j of
// columns [j0, j0 + nc), in the cascades' open blocks (n values each, in L1).
template <class T>
void pack_b_checked(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t K, T* out,
                    const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  using reg = typename v::reg;
  constexpr int w = v::width;
  constexpr int nr = tiling<T>::nr;
  const int64_t n = ldb;
  T* const r1 = io.col_r1;
  T* const r2 = io.col_r2;
  const int64_t full = nc / nr * nr;
  for (int64_t p = 0; p < kc; ++p) {
    const int64_t k = p0 + p;
    const T* src = B + k * ldb + j0;
    T* o = out + p * nr;
    const reg c1 = v::set1(io.ca1[k]), c2 = v::set1(io.ca2[k]);
    const bool ends = block_ends(k, K);
    const int64_t before = k / k_cascade_rows;
    for (int64_t jr = 0; jr < full; jr += nr, o += kc * nr) {
      const int64_t j = j0 + jr;
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        prefetch_line(src + k_ahead_b * ldb + jr + h * w);
        const reg x = v::load(src + jr + h * w);
        v::store(o + h * w, x);
        const reg a = v::fma(c1, x, v::load(r1 + j + h * w)), b = v::fma(c2, x, v::load(r2 + j + h * w));
        if (ends) {
          cascade_merge<T>(r1, n, j + h * w, a, before), cascade_merge<T>(r2, n, j + h * w, b, before);
        } else {
          v::store(r1 + j + h * w, a), v::store(r2 + j + h * w, b);
        }
      }
    }
    if (full < nc) {
      const int cols = int(nc - full);
      const int64_t j = j0 + full;
      for (int c = 0; c < nr; ++c) o[c] = c < cols ? src[full + c] : T(0);
      for (int c = 0; c < cols; ++c) {
        r1[j + c] = simd::fma1(io.ca1[k], src[full + c], r1[j + c]);
        r2[j + c] = simd::fma1(io.ca2[k], src[full + c], r2[j + c]);
        if (ends) cascade_merge_one(r1, n, j + c, before), cascade_merge_one(r2, n, j + c, before);
      }
    }
  }
}

// An edge tile of C at (i0, j0), rows x cols, row stride ldc (full tiles
// take tile_sums_regs): its rows' sums C_i r1, C_i r2 (lane j mod L) and its
// share of the column sums, element by element (the same additions).
template <class T>
void tile_sums(const T* c, int64_t ldc, int64_t i0, int64_t j0, int rows, int cols, int64_t M, int64_t N,
               const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  constexpr int L = reduction_lanes<T>;
  T* const col = io.col_c1;
  for (int r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    const T* x = c + r * ldc;
    T* s1 = io.c_s1 + i * L;
    T* s2 = io.c_s2 + i * L;
    if (j0 == 0)  // the row's first tile
      for (int l = 0; l < L; l += w) v::store(s1 + l, v::zero()), v::store(s2 + l, v::zero());
    for (int cc = 0; cc < cols; ++cc) {
      const int64_t j = j0 + cc;
      const int o = int(j % L);
      s1[o] = s1[o] + x[cc];
      s2[o] = simd::fma1(io.wn[j], x[cc], s2[o]);
      if (io.columns) {
        col[j] = col[j] + x[cc];
        if (block_ends(i, M)) cascade_merge_one(col, N, j, i / k_cascade_rows);
      }
    }
  }
}

// The sums of a full tile's rows [i0, i0 + R) x columns [j0, j0 + NR) from
// the micro-kernel's registers, as tile_sums takes them from memory: per row
// C_i r1 and C_i r2 into lanes j mod L, per column the running sum of its
// cascade block in a register, merged where a block of 8 rows ends.
template <class T, int R>
void tile_sums_regs(const typename simd::ops<T>::reg (&acc)[R][2], int64_t i0, int64_t j0, int64_t M, int64_t N,
                    const check_sums_io<T>& io) {
  using v = simd::ops<T>;
  using reg = typename v::reg;
  constexpr int w = v::width;
  constexpr int L = reduction_lanes<T>;
  const reg wn0 = v::load(io.wn + j0), wn1 = v::load(io.wn + j0 + w);
  const int o0 = int(j0 % L), o1 = int((j0 + w) % L);
  T* const col = io.col_c1;
  reg col0 = v::zero(), col1 = v::zero();
  if (io.columns) col0 = v::load(col + j0), col1 = v::load(col + j0 + w);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const int64_t i = i0 + r;
    T* s1 = io.c_s1 + i * L;
    T* s2 = io.c_s2 + i * L;
    if (j0 == 0)  // the row's first tile
      for (int l = 0; l < L; l += w) v::store(s1 + l, v::zero()), v::store(s2 + l, v::zero());
    v::store(s1 + o0, v::add(v::load(s1 + o0), acc[r][0])), v::store(s1 + o1, v::add(v::load(s1 + o1), acc[r][1]));
    v::store(s2 + o0, v::fma(wn0, acc[r][0], v::load(s2 + o0))), v::store(s2 + o1, v::fma(wn1, acc[r][1], v::load(s2 + o1)));
    if (io.columns) {
      col0 = v::add(col0, acc[r][0]), col1 = v::add(col1, acc[r][1]);
      if (block_ends(i, M)) {
        cascade_merge<T>(col, N, j0, col0, i / k_cascade_rows), cascade_merge<T>(col, N, j0 + w, col1, i / k_cascade_rows);
        col0 = col1 = v::zero();
      }
    }
  }
  if (io.columns) v::store(col + j0, col0), v::store(col + j0 + w, col1);
}

}  // namespace
}  // namespace sdc::SDC_KERNEL_NS
