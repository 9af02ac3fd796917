// Template bodies of checksum_abft's two faster paths (included by
// abft_checksums.hpp after abft_checksums_impl.hpp): the incremental recheck
// (the clean pair's checks, patched where a fault changed the data, by the
// same per-row and per-column functions as a full verification, so the two
// agree bit for bit) and the protected GEMM (the sums taken by the GEMM's own
// passes, then the same thresholds and finish).
#pragma once
#include "detectors/gemm/abft_checksums_impl.hpp"

namespace sdc {

template <class Policy>
template <class T>
void checksum_abft<Policy>::baseline_t(const gemm_data<T>& d) {
  compute_all(d, st<T>().base);
}

template <class Policy>
template <class T>
verdict checksum_abft<Policy>::verify_change_t(const gemm_data<T>& d, const gemm_change& ch) {
  auto& s = st<T>();
  const int64_t m = d.shape.m, n = d.shape.n;  // named variables: lambdas below capture them (clang 14)
  checks<T>& c = s.work;
  c = s.base;
  const policy_dependencies dep = policy_.depends();
  const auto ctx = context(d, c);
  auto rows_all = [&] {  // every row sum changed (a column of C did)
    for (int64_t i = 0; i < m; ++i) row_sums(d, c, i);
    if (dep.on_output)
      for (int64_t i = 0; i < m; ++i) c.row_T[size_t(i)] = policy_.row_threshold(ctx, i);
  };
  auto cols_all = [&] {  // every column sum changed (a row of C did)
    if (!o_.check_columns) return;
    for (int64_t j = 0; j < n; ++j) col_sums(d, c, j);
    if (dep.on_output)
      for (int64_t j = 0; j < n; ++j) c.col_T[size_t(j)] = policy_.col_threshold(ctx, j);
  };
  switch (ch.k) {
    case gemm_change::kind::output_element:
      row_sums(d, c, ch.i);
      if (dep.on_output) c.row_T[size_t(ch.i)] = policy_.row_threshold(ctx, ch.i);
      if (o_.check_columns) {
        col_sums(d, c, ch.j);
        if (dep.on_output) c.col_T[size_t(ch.j)] = policy_.col_threshold(ctx, ch.j);
      }
      break;
    case gemm_change::kind::a_row:
      row_refs(d, c, ch.i);
      row_sums(d, c, ch.i);
      c.row_T[size_t(ch.i)] = policy_.row_threshold(ctx, ch.i);
      cols_all();
      break;
    case gemm_change::kind::b_col:
      if (o_.check_columns) {
        col_refs(d, c, ch.j);
        col_sums(d, c, ch.j);
        c.col_T[size_t(ch.j)] = policy_.col_threshold(ctx, ch.j);
      }
      rows_all();
      break;
  }
  return finish(d, c);
}

// The protected GEMM: the sums of compute_all from the GEMM's own passes
// (gemm_check_sums.hpp keeps each in compute_all's order), then the
// thresholds and finish as verify does. Only where no sum needs rounding to a
// narrower output and no threshold reads C.
template <class Policy>
template <class T>
bool checksum_abft<Policy>::protected_gemm_t(const gemm_data<T>& d, T* C, verdict* v) {
  using k = accumulation_order::kind;
  if (d.out_fmt != d.dtype || policy_.depends().on_output || d.order.k == k::pairwise || d.order.k == k::openblas)
    return false;
  auto& s = st<T>();
  checks<T>& c = s.work;
  const bool stats = policy_.depends().row_stats;
  const check_sums_spec<T> spec{s.br1.data(), s.br2.data(), s.wn.data(), s.ca1.data(), s.ca2.data(), stats, o_.check_columns};
  thread_local check_sums<T> sums;
  gemm_fixed_order_checked(d.A, d.B, C, d.shape, d.order, spec, sums);
  gemm_data<T> done = d;
  done.C = done.acc = C;
  const auto [m, n, kk] = d.shape;
  c.s1 = sums.s1, c.s2 = sums.s2, c.row_ref = sums.row_ref, c.row_ref2 = sums.row_ref2;
  c.row_T.assign(size_t(m), 0.0);
  if (stats) {
    c.a_rows.resize(size_t(m));
    for (int64_t i = 0; i < m; ++i) c.a_rows[size_t(i)] = {sums.a_sum[size_t(i)], sums.a_max[size_t(i)], sums.a_min[size_t(i)]};
  }
  const auto ctx = context(done, c);
  for (int64_t i = 0; i < m; ++i) c.row_T[size_t(i)] = policy_.row_threshold(ctx, i);
  if (o_.check_columns) {
    c.c1 = sums.c1, c.col_ref = sums.col_ref, c.col_ref2 = sums.col_ref2;
    c.col_T.assign(size_t(n), 0.0);
    for (int64_t j = 0; j < n; ++j) c.col_T[size_t(j)] = policy_.col_threshold(ctx, j);
  }
  *v = finish(done, c);
  remember(c);
  return true;
}

}  // namespace sdc
