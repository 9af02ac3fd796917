// The protected GEMM's entry points (gemm_check_sums.hpp): the lanes and
// column cascades set up as the separate check starts them, the level's
// checked kernel run over them with the separate check's row kernels for
// whole rows, C's row lanes (where its rows are not whole) folded by halves
// (the same at every level), the cascades' pending levels added as
// column_cascade does at its last row.
#include "foundation/kernels/gemm/gemm_check_sums.hpp"

#include <optional>

#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_dispatch.hpp"
#include "foundation/simd/column_cascade.hpp"
#include "foundation/simd/reductions.hpp"

namespace sdc {
namespace {

static_assert(k_block_rows == 8, "gemm_fixed_order_body.hpp's k_cascade_rows is column_cascade.hpp's k_block_rows");

// A column cascade's storage: the open block, then the levels.
template <class T>
struct cascade_store {
  std::vector<T> v;
  T* p = nullptr;  // v from a cache-line boundary
  int64_t n = 0;
  // Levels are written before they are read: only the open block starts at 0.
  void reset(int64_t cols, int64_t rows) {
    n = cols;
    p = line_aligned(v, cols * (1 + cascade_levels(rows)));
    std::fill(p, p + cols, T(0));
  }
  // column_cascade's totals: the pending levels (the set bits of the block
  // count), lowest first, each added to the running total (level + total).
  void totals(int64_t rows, std::vector<T>& out) const {
    out.assign(size_t(n), T(0));
    const int64_t blocks = (rows + k_block_rows - 1) / k_block_rows;
    bool any = false;
    for (int l = 0; (blocks >> l) != 0; ++l) {
      if (!((blocks >> l) & 1)) continue;
      const T* level = p + (1 + l) * n;
      for (int64_t j = 0; j < n; ++j) out[size_t(j)] = any ? level[j] + out[size_t(j)] : level[j];
      any = true;
    }
  }
};

// reductions.hpp's fold: lane l takes lane l + L/2, then L/4, ... 1. The
// same elementwise additions at every level (the kernels fold their
// registers this way), so plain loops give the same bits; each step's bound
// is a constant, so the compiler makes them vector additions.
template <int H, class T>
inline void halve(T* a) {
  if constexpr (H >= 1) {
    for (int l = 0; l < H; ++l) a[l] = a[l] + a[l + H];
    halve<H / 2>(a);
  }
}
template <class T>
T fold(const T* lanes) {
  constexpr int L = reduction_lanes<T>;
  alignas(64) T a[L];
  for (int l = 0; l < L; ++l) a[l] = lanes[l];
  halve<L / 2>(a);
  return a[0];
}

// Whole rows, taken by the separate check's own row kernels as compute_all
// calls them (foundation/simd/reductions.hpp): every row of A (its
// references and statistics) as the kernel first packs it, and, where N is
// within one column block, C's row sums and its share of the column sums
// once a panel of rows is final, in row order. Their bits are the separate
// check's by construction.
template <class T>
struct whole_rows {
  const reduction_kernels<T>* red;
  const check_sums_spec<T>* spec;
  check_sums<T>* out;
  const T* C;
  int64_t m, n, k;
  column_cascade<T>* col;  // C's column sums when columns are checked
  static void a_row(void* p, int64_t i, const T* row) {
    const auto& w = *static_cast<const whole_rows*>(p);
    const size_t r = size_t(i);
    check_sums<T>& o = *w.out;
    if (w.spec->row_stats)
      w.red->dot2_sum_max_min(row, w.spec->br1, w.spec->br2, w.k, &o.row_ref[r], &o.row_ref2[r], &o.a_sum[r], &o.a_max[r],
                              &o.a_min[r]);
    else
      w.red->dot2(row, w.spec->br1, w.spec->br2, w.k, &o.row_ref[r], &o.row_ref2[r]);
  }
  // Rows two at a time (sums_and_column2: w read once for both, the column
  // sums read and written once per pair), never across a cascade block's
  // end; the bits of sums_and_column (or sum_and_weighted) row by row.
  static void c_rows(void* p, int64_t i0, int64_t rows) {
    const auto& w = *static_cast<const whole_rows*>(p);
    for (int64_t i = i0; i < i0 + rows;) {
      T* const col = w.col ? w.col->block() : nullptr;  // a block's end swaps the storage
      T* s1 = &w.out->s1[size_t(i)];
      T* s2 = &w.out->s2[size_t(i)];
      const bool pair = i + 1 < i0 + rows && (i + 1) % k_block_rows != 0;
      if (pair)
        w.red->sums_and_column2(w.C + i * w.n, w.n, w.spec->wn, w.n, s1, s2, col);
      else if (col)
        w.red->sums_and_column(w.C + i * w.n, w.spec->wn, w.n, s1, s2, col);
      else
        w.red->sum_and_weighted(w.C + i * w.n, w.spec->wn, w.n, s1, s2);
      if (w.col) {
        w.col->row_done(i, w.m);
        if (pair) w.col->row_done(i + 1, w.m);
      }
      i += pair ? 2 : 1;
    }
  }
};

template <class T>
void checked_with(const fixed_order_kernels<T>& kern, const T* A, const T* B, T* C, gemm_shape s, accumulation_order o,
                  const check_sums_spec<T>& spec, check_sums<T>& out) {
  if (o.k == accumulation_order::kind::pairwise || o.k == accumulation_order::kind::openblas)
    throw value_error("the protected GEMM runs the blocked orders (sequential, kblock(B)); got " + o.text());
  constexpr int64_t L = reduction_lanes<T>;
  const auto [m, n, k] = s;
  thread_local std::vector<T> lanes;
  thread_local cascade_store<T> c1, r1, r2;
  const int64_t block = o.k == accumulation_order::kind::kblock ? o.block : 0;
  const int64_t need = kern.blocked_workspace(block);
  T* const w = gemm_workspace<T>(need);
  const bool columns = spec.columns;
  const bool runs = k > 0 && n > 0;  // else the blocked kernel runs no tile: sums of nothing
  const bool c_rows = runs && n <= kern.column_block;
  // C's row lanes, where rows are not whole, are started by the kernel at each row's first tile.
  T* const lane = c_rows ? nullptr : line_aligned(lanes, 2 * m * L);
  check_sums_io<T> io{spec.br1, spec.br2, spec.wn, spec.ca1, spec.ca2, columns, lane, lane ? lane + m * L : nullptr,
                      nullptr, nullptr, nullptr};
  if (columns) {
    c1.reset(n, m), r1.reset(n, k), r2.reset(n, k);
    io.col_c1 = c1.p, io.col_r1 = r1.p, io.col_r2 = r2.p;
  }
  for (auto* v : {&out.s1, &out.s2, &out.row_ref, &out.row_ref2}) v->resize(size_t(m));
  if (spec.row_stats) out.a_sum.resize(size_t(m)), out.a_max.resize(size_t(m)), out.a_min.resize(size_t(m));
  out.c1.assign(columns ? size_t(n) : 0, T(0));
  const auto& red = active_reduction_kernels<T>();
  std::optional<column_cascade<T>> col;
  if (c_rows && columns) col.emplace(n, out.c1.data());
  whole_rows<T> whole{&red, &spec, &out, C, m, n, k, col ? &*col : nullptr};
  io.ctx = &whole;
  io.a_row = &whole_rows<T>::a_row;
  if (c_rows) io.c_rows = &whole_rows<T>::c_rows;
  if (!runs) {  // no tile runs: C is zero, and so is every sum of it; A's rows are what they are
    std::fill(C, C + m * n, T(0));
    for (int64_t i = 0; i < m; ++i) whole_rows<T>::a_row(&whole, i, A + i * k);
    std::fill(out.s1.begin(), out.s1.end(), T(0)), std::fill(out.s2.begin(), out.s2.end(), T(0));
  } else {
    kern.blocked_checked(A, B, C, s, block, w, io);
    if (!c_rows)
      for (int64_t i = 0; i < m; ++i) out.s1[size_t(i)] = fold(io.c_s1 + i * L), out.s2[size_t(i)] = fold(io.c_s2 + i * L);
  }
  if (columns) {
    if (runs && !c_rows) c1.totals(m, out.c1);  // else C's column sums are whole rows' (or C is zero)
    r1.totals(k, out.col_ref), r2.totals(k, out.col_ref2);
  } else {
    out.col_ref.clear(), out.col_ref2.clear();
  }
}

template <class T>
void checked_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, const check_sums_spec<T>& spec,
                  check_sums<T>& out) {
  static const fixed_order_kernels<T>& k = fixed_order_kernels_for<T>(active_gemm_variant());
  checked_with(k, A, B, C, s, o, spec, out);
}

}  // namespace

void gemm_fixed_order_checked(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o,
                              const check_sums_spec<float>& spec, check_sums<float>& out) {
  checked_impl(A, B, C, s, o, spec, out);
}
void gemm_fixed_order_checked(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o,
                              const check_sums_spec<double>& spec, check_sums<double>& out) {
  checked_impl(A, B, C, s, o, spec, out);
}
void gemm_fixed_order_checked_at(gemm_kernel_variant v, const float* A, const float* B, float* C, gemm_shape s,
                                 accumulation_order o, const check_sums_spec<float>& spec, check_sums<float>& out) {
  checked_with(fixed_order_kernels_for<float>(v), A, B, C, s, o, spec, out);
}
void gemm_fixed_order_checked_at(gemm_kernel_variant v, const double* A, const double* B, double* C, gemm_shape s,
                                 accumulation_order o, const check_sums_spec<double>& spec, check_sums<double>& out) {
  checked_with(fixed_order_kernels_for<double>(v), A, B, C, s, o, spec, out);
}

}  // namespace sdc
