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

// pack_a, giving each row of A to the caller (a_row: the separate check's
// own row kernel, so its bits by construction) the first time the kernel
// packs it (the first depth chunk of the first column block), whole: all K
// elements, row by row, each row's chunk packed right after it, from L1 (a
// panel's rows all first, then packed, read the chunk from L2: fp32's fusion
// about 0.5 % of the GEMM dearer at n = 1024, Intel Xeon). A second read of
// A beyond the first chunk, but no lanes carried across depth chunks: five
// per row, read and written every chunk, cost more
// (results/bench/vabft_overhead.txt).
template <int MR, class T>
void pack_a_checked(const T* A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int64_t stride, T* out,
                    const check_sums_io<T>& io) {
  for (int64_t ir = 0; ir < mc; ir += MR, out += MR * stride) {
    const int64_t rows = min_of<int64_t>(MR, mc - ir);
    for (int r = 0; r < MR; ++r) {
      const int64_t i = i0 + ir + r;
      if (p0 == 0 && r < rows) io.a_row(io.ctx, i, A + i * lda);
      pack_a_row(A + i * lda + p0, kc, MR * lda, r < rows, out + r * stride);
    }
  }
}

// A panel of B from column j (NR wide) over `rows` rows of a cascade block,
// packed as pack_b packs it, with (c1 A) B_j and (c2 A) B_j of its columns:
// each column's partial in a register, FMA down the rows in order (as
// axpy2_rows), merged where the block ends. (Four panels side by side, to
// overlap the FMA chains, measured no faster.) A block's rows are read as 8
// streams, panel after panel: each row's line k_ahead_panels panels on is
// asked for (1 KiB; the next block's rows, asked for before, were a whole
// block of panels away: fp32's fusion 1.06 -> 1.05 at n = 512, 1.04 -> 1.034
// at 1024; fp64's unchanged).
constexpr int64_t k_ahead_panels = 8;
template <class T>
inline void panel_checked(const T* src, int64_t ldb, int rows, const T* ca1, const T* ca2, T* o, T* r1, T* r2, int64_t j,
                          int64_t n, bool ends, int64_t before) {
  using v = simd::ops<T>;
  using reg = typename v::reg;
  constexpr int w = v::width;
  constexpr int nr = tiling<T>::nr;
  reg a[2], b[2];
#pragma GCC unroll 2
  for (int q = 0; q < 2; ++q) a[q] = v::load(r1 + j + q * w), b[q] = v::load(r2 + j + q * w);
  for (int r = 0; r < rows; ++r) {
    const reg c1 = v::set1(ca1[r]), c2 = v::set1(ca2[r]);
    const T* x = src + r * ldb;
#pragma GCC unroll 2
    for (int q = 0; q < 2; ++q) {
      prefetch_line(x + k_ahead_panels * nr + q * w);
      const reg xv = v::load(x + q * w);
      v::store(o + r * nr + q * w, xv);
      a[q] = v::fma(c1, xv, a[q]), b[q] = v::fma(c2, xv, b[q]);
    }
  }
#pragma GCC unroll 2
  for (int q = 0; q < 2; ++q) {
    if (ends) cascade_merge<T>(r1, n, j + q * w, a[q], before), cascade_merge<T>(r2, n, j + q * w, b[q], before);
    else v::store(r1 + j + q * w, a[q]), v::store(r2 + j + q * w, b[q]);
  }
}

// Packs B as pack_b does and, in the same read, adds depth [p0, p0 + kc) to
// the column references (c1 A) B_j and (c2 A) B_j of columns [j0, j0 + nc):
// a column cascade's block of rows at a time (the segment of it inside this
// chunk), panel by panel.
template <class T>
void pack_b_checked(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t K, T* out,
                    const check_sums_io<T>& io) {
  constexpr int nr = tiling<T>::nr;
  const int64_t n = ldb;
  T* const r1 = io.col_r1;
  T* const r2 = io.col_r2;
  const int64_t full = nc / nr * nr;
  for (int64_t p = 0; p < kc;) {
    const int64_t k = p0 + p;
    const int rows = int(min_of<int64_t>(kc - p, k_cascade_rows - k % k_cascade_rows));
    const bool ends = block_ends(k + rows - 1, K);
    const int64_t before = (k + rows - 1) / k_cascade_rows;
    const T* src = B + k * ldb + j0;
    const T *ca1 = io.ca1 + k, *ca2 = io.ca2 + k;
    T* o = out + p * nr;
    for (int64_t jr = 0; jr < full; jr += nr, o += kc * nr)
      panel_checked(src + jr, ldb, rows, ca1, ca2, o, r1, r2, j0 + jr, n, ends, before);
    if (full < nc) {
      const int cols = int(nc - full);
      const int64_t j = j0 + full;
      for (int r = 0; r < rows; ++r) {
        const T* x = src + r * ldb + full;
        for (int c = 0; c < nr; ++c) o[r * nr + c] = c < cols ? x[c] : T(0);
        for (int c = 0; c < cols; ++c)
          r1[j + c] = simd::fma1(io.ca1[k + r], x[c], r1[j + c]), r2[j + c] = simd::fma1(io.ca2[k + r], x[c], r2[j + c]);
      }
      if (ends)
        for (int c = 0; c < cols; ++c) cascade_merge_one(r1, n, j + c, before), cascade_merge_one(r2, n, j + c, before);
    }
    p += rows;
  }
}

// An edge tile of C at (i0, j0), rows x cols, row stride ldc (full tiles
// take tile_sums_full): its rows' sums C_i r1, C_i r2 (lane j mod L) and its
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

// The sums of a full-width tile's rows [i0, i0 + valid) (valid <= R) x
// columns [j0, j0 + NR), just stored to C (c, row stride ldc) and read back
// while in L1, as tile_sums takes them, a vector at a time: per row C_i r1
// and C_i r2 into lanes j mod L, per column the running sum of its cascade
// block in a register, merged where a block of 8 rows ends. (Taken from the
// micro-kernel's registers through an epilogue instead, one accumulator was
// spilled to the stack in its depth loop: the last depth chunk ran about 6 %
// slower, fp32 and fp64, Intel Xeon.)
template <class T, int R>
void tile_sums_full(const T* c, int64_t ldc, int64_t i0, int valid, int64_t j0, int64_t M, int64_t N,
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
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
    if (r >= valid) break;
    const int64_t i = i0 + r;
    const reg x0 = v::load(c + r * ldc), x1 = v::load(c + r * ldc + w);
    T* s1 = io.c_s1 + i * L;
    T* s2 = io.c_s2 + i * L;
    if (j0 == 0)  // the row's first tile
      for (int l = 0; l < L; l += w) v::store(s1 + l, v::zero()), v::store(s2 + l, v::zero());
    v::store(s1 + o0, v::add(v::load(s1 + o0), x0)), v::store(s1 + o1, v::add(v::load(s1 + o1), x1));
    v::store(s2 + o0, v::fma(wn0, x0, v::load(s2 + o0))), v::store(s2 + o1, v::fma(wn1, x1, v::load(s2 + o1)));
    if (io.columns) {
      col0 = v::add(col0, x0), col1 = v::add(col1, x1);
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
