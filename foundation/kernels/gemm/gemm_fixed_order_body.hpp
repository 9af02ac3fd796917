// The body of foundation/kernels/gemm/gemm_dispatch.hpp's kernels, compiled once per
// SIMD level by gemm_fixed_order_{scalar,avx2,avx512}.cpp with that level's
// flags (CMakeLists.txt) and inside its namespace SDC_KERNEL_NS; simd.hpp
// picks the registers from the flags. Loop nest after GotoBLAS/BLIS: jc (NC
// columns) > pc (KC depth, packed B) > ic (MC rows, packed A) > jb (NB
// columns of packed B, in L2) > ir (MR) > jr (NR) > micro-kernel: as in
// BLIS's kernels for AVX-512 CPUs, the broadcast side's micro-panel (MR rows
// of A, 25 KB in the generic tuning) stays in L1 while the vector side
// (packed B) streams past it, from L2. K is never split across two
// accumulators, so each element's sum runs over k in order exactly as in
// gemm_reference; the micro-kernel carries the accumulator from one KC
// chunk to the next through C, which holds it at full accumulator
// precision. No library templates and no allocation here: an inline function
// shared between the levels' files could be kept by the linker in its
// AVX-512 copy for every level.
#ifndef SDC_KERNEL_NS
#error "define SDC_KERNEL_NS before including gemm_fixed_order_body.hpp"
#endif
#include "foundation/kernels/gemm/gemm_check_sums_body.hpp"
#include "foundation/kernels/gemm/gemm_tile_body.hpp"

namespace sdc::SDC_KERNEL_NS {
namespace {

template <class T, bool Checked, gemm_tuning Tu>
void blocked_gemm_t(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work, const check_sums_io<T>* io) {
  constexpr int nr = tiling<T>::nr;
  constexpr int mr = k_mr<Tu>;
  static_assert(k_nb<T, Tu> % nr == 0 && k_nc<T> % k_nb<T, Tu> == 0,
                "B's sub-blocks are whole panels, and tile a column block");
  const int64_t kc_max = kc_for<T, Tu>(block), as = a_stride_for<T, Tu>(block);
  T* const bpack = work;
  T* const apack = work + kc_max * (k_nc<T> + nr);
  T tile[mr * nr];
  for (int64_t jc = 0; jc < s.n; jc += k_nc<T>) {
    const int64_t nc = min_of(k_nc<T>, s.n - jc);
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
      for (int64_t ic = 0; ic < s.m; ic += k_mc<Tu>) {
        const int64_t mc = min_of(k_mc<Tu>, s.m - ic);
        if constexpr (Checked) {
          if (jc == 0) pack_a_checked<mr>(A, s.k, ic, mc, pc, kc, as, apack, *io);  // each row of A to a_row once
          else pack_a<mr>(A, s.k, ic, mc, pc, kc, as, apack);
        } else {
          pack_a<mr>(A, s.k, ic, mc, pc, kc, as, apack);
        }
        for (int64_t jb = 0; jb < nc; jb += k_nb<T, Tu>) {
          const int64_t jb_end = min_of(nc, jb + k_nb<T, Tu>);
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int rows = int(min_of<int64_t>(mr, mc - ir));
            const T* ap = apack + (ir / mr) * as * mr;
            for (int64_t jr = jb; jr < jb_end; jr += nr) {
              const int cols = int(min_of<int64_t>(nr, nc - jr));
              const T* bp = bpack + (jr / nr) * kc * nr;
              T* c = C + (ic + ir) * s.n + jc + jr;
              if (cols == nr) {  // on C itself, its rows all or the first `rows` (the end of M)
                micro_kernel<Tu>(kc, ap, as, bp, c, s.n, first, block, rows);
                if constexpr (Checked)  // the finished tile's sums, read back while in L1
                  if (last && !io->c_rows) tile_sums_full<T, mr>(c, s.n, ic + ir, rows, jc + jr, s.m, s.n, *io);
                continue;
              }
              // Edge columns: run on a full local tile, copy the valid part back.
              for (int e = 0; e < mr * nr; ++e) tile[e] = T(0);
              if (!first)
                for (int r = 0; r < rows; ++r)
                  for (int cc = 0; cc < cols; ++cc) tile[r * nr + cc] = c[r * s.n + cc];
              micro_kernel<Tu>(kc, ap, as, bp, tile, nr, first, block);
              for (int r = 0; r < rows; ++r)
                for (int cc = 0; cc < cols; ++cc) c[r * s.n + cc] = tile[r * nr + cc];
              if constexpr (Checked)
                if (last && !io->c_rows) tile_sums(tile, nr, ic + ir, jc + jr, rows, cols, s.m, s.n, *io);
            }
            if constexpr (Checked)  // these rows of C are final
              if (last && io->c_rows && jc + nc == s.n && jb_end == nc) io->c_rows(io->ctx, ic + ir, rows);
          }
        }
      }
    }
  }
}

template <class T, gemm_tuning Tu>
void blocked_gemm(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work) {
  blocked_gemm_t<T, false, Tu>(A, B, C, s, block, work, nullptr);
}
template <class T, gemm_tuning Tu>
void blocked_gemm_checked(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work, const check_sums_io<T>& io) {
  blocked_gemm_t<T, true, Tu>(A, B, C, s, block, work, &io);
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

template <class T, gemm_tuning Tu>
constexpr fixed_order_kernels<T> kernel_table() {
  return {&blocked_workspace<T, Tu>, &blocked_gemm<T, Tu>, &pairwise_gemm<T>, &blocked_gemm_checked<T, Tu>, k_nc<T>,
          k_kc<T, Tu>};
}

}  // namespace

// The table gemm_fixed_order.cpp dispatches to.
extern const fixed_order_tables<float> gemm_kernels_f32;
extern const fixed_order_tables<double> gemm_kernels_f64;
const fixed_order_tables<float> gemm_kernels_f32 = {kernel_table<float, gemm_tuning::generic>(),
                                                     kernel_table<float, gemm_tuning::intel>()};
const fixed_order_tables<double> gemm_kernels_f64 = {kernel_table<double, gemm_tuning::generic>(),
                                                      kernel_table<double, gemm_tuning::intel>()};

}  // namespace sdc::SDC_KERNEL_NS
