// The fixed-order GEMM's tiles: blocking constants, packing and the
// micro-kernel. Part of gemm_fixed_order_body.hpp (compiled once per SIMD
// level inside SDC_KERNEL_NS, with simd.hpp's registers for that level).
#pragma once
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including gemm_tile_body.hpp"
#endif
#include "foundation/kernels/gemm/gemm_dispatch.hpp"
#include "foundation/kernels/gemm/simd.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {


template <class T>
inline T min_of(T a, T b) { return b < a ? b : a; }
template <class T>
inline T max_of(T a, T b) { return a < b ? b : a; }

// MR x NR = 12 x 2 vectors where there are 32 vector registers (AVX-512: 24
// accumulators, two B vectors, a broadcast), else 6 x 2 vectors (AVX2's 16);
// the intel tuning takes 14 x 2 on AVX-512 (28 accumulators: two loads of B
// and 14 broadcasts per 28 FMAs, not per 24). The tile's size changes no
// element's order: every level and tuning gives the same bits.
template <gemm_tuning Tu>
constexpr int k_mr = simd::ops<float>::width < 16 ? 6
                     : Tu == gemm_tuning::intel   ? 14
                                                  : 12;
// Rows a k-block tile runs at once (its partial sums double the registers):
// half the tile where there are 32 registers, the whole 6 with AVX2.
template <gemm_tuning Tu>
constexpr int k_half = simd::ops<float>::width < 16 ? k_mr<Tu> : k_mr<Tu> / 2;
// The rows of A packed at once (MC), and the bytes of packed B one sub-block
// holds in L2 (below): generic 96 rows and 512 KiB; intel 192 rows rounded up
// to whole tiles (196 with 14-row tiles) and 1 MiB, so each sub-block is read
// from L3 half as often (L2 then holds both blocks: 1.4 MiB fp32, 1.8 MiB
// fp64 of an Intel Xeon's 2 MiB). What each tuning gained where:
// results/notes/gemm_kernels_bench.md.
template <gemm_tuning Tu>
constexpr int64_t k_mc = Tu == gemm_tuning::intel ? (192 + k_mr<Tu> - 1) / k_mr<Tu> * k_mr<Tu> : 96;
static_assert(k_mc<gemm_tuning::intel> % k_mr<gemm_tuning::intel> == 0 &&
                  k_mc<gemm_tuning::generic> % k_mr<gemm_tuning::generic> == 0,
              "a block of A's rows is whole tiles: only the last block of M has a short panel");
template <gemm_tuning Tu>
constexpr int64_t k_nb_bytes = (Tu == gemm_tuning::intel ? int64_t(1024) : int64_t(512)) << 10;
// The depth of a chunk. generic: 2 KiB of a row of A (512 fp32, 256 fp64),
// so that A's micro-panel (12 such rows, 25 KiB) stays in L1 beside the
// stream of packed B. C's tiles are read and written once per chunk: fp32's
// chunk of 256 read them twice as often (results/bench/vabft_overhead.txt).
// intel: 512 steps for both types (fp64's micro-panel, 48 KiB, no longer
// fits L1 beside B, but fp64 reads and writes C's tiles half as often).
template <class T, gemm_tuning Tu>
constexpr int64_t k_kc = Tu == gemm_tuning::intel ? int64_t(512) : int64_t(2048) / int64_t(sizeof(T));
// intel: the micro-kernel asks for packed B ahead (rank1_updates).
constexpr bool prefetches_b(gemm_tuning t) { return t == gemm_tuning::intel; }
// A packed panel's row stride is KC and one cache line more, so that its rows
// fall in different L1 sets.
constexpr int64_t k_a_pad = 16;
// A column block: 4096 fp32 or 2048 fp64 columns (its packed B, KC x NC, is
// 8 or 4 MiB, in L3), so A is packed once per 4096 or 2048 columns, not once
// per 1024: at n = 4096 packing A four times from memory cost 3 % of the
// GEMM (results/bench/vabft_overhead.txt).
template <class T>
constexpr int64_t k_nc = (int64_t(16) << 10) / int64_t(sizeof(T));
// Within a column block, A's micro-panels take B a sub-block at a time:
// KC x NB of packed B (k_nb_bytes) stays in L2 while the MC / MR micro-panels
// of A stream it past, so it is read from L3 once per block of A's rows, not
// once per micro-panel (MC / MR = 8 or 16 times).
template <class T, gemm_tuning Tu>
constexpr int64_t k_nb = k_nb_bytes<Tu> / (k_kc<T, Tu> * int64_t(sizeof(T)));

// Packing reads A and B from memory once: it asks for the row some rows on
// (a prefetch never faults, so past the end is harmless). A's rows are MR on:
// the next panel's, far enough ahead to hide L3's latency (2 rows on left
// our kernel 1-2 % behind oneDNN's sgemm at n = 1024). B's are k_ahead_b on.
constexpr int64_t k_ahead_b = 4;
template <class T>
inline void prefetch_line(const T* p) { __builtin_prefetch(p, 0, 3); }

template <class T>
struct tiling {
  using v = simd::ops<T>;
  static constexpr int nr = 2 * v::width;
};

// One row of a panel: a (kc elements, or zeros when !valid) to o, asking
// for the same elements `ahead` elements on (the next panel's row).
template <class T>
inline void pack_a_row(const T* a, int64_t kc, int64_t ahead, bool valid, T* o) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  int64_t p = 0;
  if (valid)
    for (; p + w <= kc; p += w) prefetch_line(a + ahead + p), v::store(o + p, v::load(a + p));
  for (; p < kc; ++p) o[p] = valid ? a[p] : T(0);
}

// Packs rows [i0, i0+mc) x depth [p0, p0+kc) of A into MR-row panels, each
// row of a panel `stride` elements after the last (rows past the end are
// zeros): a plain copy of each row, which the micro-kernel broadcasts from
// at fixed offsets.
template <int MR, class T>
void pack_a(const T* A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int64_t stride, T* out) {
  for (int64_t ir = 0; ir < mc; ir += MR, out += MR * stride) {
    const int rows = int(min_of<int64_t>(MR, mc - ir));
    for (int r = 0; r < MR; ++r) pack_a_row(A + (i0 + ir + r) * lda + p0, kc, MR * lda, r < rows, out + r * stride);
  }
}

// Packs depth [p0, p0+kc) x columns [j0, j0+nc) of B into NR-column panels,
// k-major: row by row of B (one stream the prefetcher follows), each row's
// full panels as two vectors.
template <class T>
void pack_b(const T* B, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  constexpr int nr = tiling<T>::nr;
  const int64_t full = nc / nr * nr;
  for (int64_t p = 0; p < kc; ++p) {
    const T* src = B + (p0 + p) * ldb + j0;
    T* o = out + p * nr;
    for (int64_t jr = 0; jr < full; jr += nr, o += kc * nr)
      prefetch_line(src + k_ahead_b * ldb + jr), prefetch_line(src + k_ahead_b * ldb + jr + nr - 1),
          v::store(o, v::load(src + jr)), v::store(o + w, v::load(src + jr + w));
    if (full < nc)
      for (int c = 0; c < nr; ++c) o[c] = full + c < nc ? src[full + c] : T(0);
  }
}

// How far ahead (depth steps, two cache lines each) the intel tuning asks
// for packed B: 8 and 16 steps measured the same on an Intel Xeon
// (AVX-512), both faster than none (results/bench/vabft_overhead_xeon.txt).
constexpr int64_t k_prefetch_b_steps = 8;

// x[r][h] = fma(A[r][p], B[p][h], x[r][h]) for p in [p0, p1), in order: the
// micro-kernel's rank-1 updates (A's rows `stride` apart, B's panel k-major).
// PfB: ask for B's panel k_prefetch_b_steps ahead into L1 (speed, not bits;
// the intel tuning, gemm_kernels.hpp).
template <int R, bool PfB, class T>
__attribute__((always_inline)) inline void rank1_updates(const T* ap, int64_t stride, const T* bp, int64_t p0, int64_t p1,
                                                         typename simd::ops<T>::reg (&x)[R][2]) {
  using v = simd::ops<T>;
  constexpr int w = v::width;
  for (int64_t p = p0; p < p1; ++p) {
    if constexpr (PfB) {
      const T* ahead = bp + (p + k_prefetch_b_steps) * 2 * w;
      prefetch_line(ahead), prefetch_line(ahead + 64 / int64_t(sizeof(T)));
    }
    const typename v::reg b0 = v::load(bp + p * 2 * w), b1 = v::load(bp + p * 2 * w + w);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const typename v::reg a = v::set1(ap[r * stride + p]);
      x[r][0] = v::fma(a, b0, x[r][0]);
      x[r][1] = v::fma(a, b1, x[r][1]);
    }
  }
}

// R x NR of a tile (R rows of an MR-row panel): C (ldc) +=
// or = the packed panels' product over kc, in order. block == 0: sequential.
// block > 0: the chunk starts on a block boundary and holds whole blocks
// (the last may be short only at the end of K). Only the first `valid` rows
// of C exist (a panel short at the end of M): the rest run on the packed
// zeros and are neither loaded nor stored.
template <int R, int64_t S, bool PfB, class T>
void micro_rows(int64_t kc, const T* ap, int64_t as, const T* bp, T* c, int64_t ldc, bool first, int64_t block,
                int valid) {
  using v = simd::ops<T>;
  const int64_t stride = S ? S : as;  // A's rows: a compile-time stride in the sequential order
  constexpr int w = v::width;
  typename v::reg acc[R][2];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
    const bool load = !first && r < valid;
    acc[r][0] = load ? v::load(c + r * ldc) : v::zero();
    acc[r][1] = load ? v::load(c + r * ldc + w) : v::zero();
  }
  if (block == 0) {
    rank1_updates<R, PfB>(ap, stride, bp, 0, kc, acc);
  } else {
    for (int64_t p0 = 0; p0 < kc; p0 += block) {
      typename v::reg part[R][2];
#pragma GCC unroll 14
      for (int r = 0; r < R; ++r) part[r][0] = part[r][1] = v::zero();
      rank1_updates<R, PfB>(ap, stride, bp, p0, min_of(kc, p0 + block), part);
#pragma GCC unroll 14
      for (int r = 0; r < R; ++r) {
        acc[r][0] = v::add(acc[r][0], part[r][0]);
        acc[r][1] = v::add(acc[r][1], part[r][1]);
      }
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
    if (r < valid) v::store(c + r * ldc, acc[r][0]), v::store(c + r * ldc + w, acc[r][1]);
}

// A panel short at the end of M in the sequential order: the tile of the
// least even height R >= rows (every MR is even), so that at most one row's
// FMAs run on packed zeros (a 14-row tile on the last 8 rows of n = 512 ran
// 6 rows of zeros: 1.2 % of the GEMM's FMAs).
template <int R, int64_t S, bool PfB, class T>
void micro_rows_fit(int64_t kc, const T* ap, int64_t as, const T* bp, T* c, int64_t ldc, bool first, int rows) {
  if constexpr (R > 2)
    if (rows <= R - 2) return micro_rows_fit<R - 2, S, PfB>(kc, ap, as, bp, c, ldc, first, rows);
  micro_rows<R, S, PfB>(kc, ap, as, bp, c, ldc, first, 0, rows);
}

// The MR x NR tile, of which the first `rows` exist (all but in a panel
// short at the end of M): all rows at once in the sequential order (a short
// panel: micro_rows_fit); a k-block order (whose partial sums double the
// registers) runs it in halves, as many as hold rows.
template <gemm_tuning Tu, class T>
void micro_kernel(int64_t kc, const T* ap, int64_t as, const T* bp, T* c, int64_t ldc, bool first, int64_t block,
                  int rows = k_mr<Tu>) {
  constexpr bool pf = prefetches_b(Tu);
  constexpr int64_t S = k_kc<T, Tu> + k_a_pad;
  constexpr int h = k_half<Tu>;
  static_assert(k_mr<Tu> % 2 == 0, "short panels take tiles of even heights");
  if (block == 0) {
    if (rows >= k_mr<Tu>) return micro_rows<k_mr<Tu>, S, pf>(kc, ap, as, bp, c, ldc, first, block, rows);
    return micro_rows_fit<k_mr<Tu>, S, pf>(kc, ap, as, bp, c, ldc, first, rows);
  }
  for (int r0 = 0; r0 < rows; r0 += h)
    micro_rows<h, 0, pf>(kc, ap + r0 * as, as, bp, c + r0 * ldc, ldc, first, block, min_of(rows - r0, h));
}

// KC must hold whole k-blocks so that block boundaries never straddle a chunk.
template <class T, gemm_tuning Tu>
int64_t kc_for(int64_t block) {
  return block == 0 ? k_kc<T, Tu> : max_of<int64_t>(1, k_kc<T, Tu> / block) * block;
}
template <class T, gemm_tuning Tu>
int64_t a_stride_for(int64_t block) { return kc_for<T, Tu>(block) + k_a_pad; }

template <class T, gemm_tuning Tu>
int64_t blocked_workspace(int64_t block) {
  return kc_for<T, Tu>(block) * (k_nc<T> + tiling<T>::nr) + a_stride_for<T, Tu>(block) * (k_mc<Tu> + k_mr<Tu>);
}

}  // namespace
}  // namespace sdc::SDC_KERNEL_NS
