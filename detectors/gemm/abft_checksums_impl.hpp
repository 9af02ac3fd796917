// Template bodies of checksum_abft (included by abft_checksums.hpp): the
// encoding, one function per row or column check, the full verification and
// its verdict (finish). The incremental recheck and the protected GEMM reuse
// them: abft_checksums_fast_impl.hpp.
#pragma once
#include <algorithm>
#include <limits>

#include "foundation/io/json_file.hpp"
#include "foundation/kernels/gemm/gemm_check_sums.hpp"
#include "foundation/simd/column_cascade.hpp"
#include "foundation/simd/reductions.hpp"

namespace sdc {

template <class Policy>
template <class T>
void checksum_abft<Policy>::encode_t(const gemm_data<T>& d) {
  auto& s = st<T>();
  const auto [m, n, k] = d.shape;
  s.wn.resize(size_t(n)), s.wm.resize(size_t(m));
  for (int64_t j = 0; j < n; ++j) s.wn[size_t(j)] = T(checksum_weight(o_.weights, j, n));
  for (int64_t i = 0; i < m; ++i) s.wm[size_t(i)] = T(checksum_weight(o_.weights, i, m));
  // B r1, B r2 along B's rows in the lane order; c1 A, c2 A down A's
  // columns in the column cascade (foundation/simd/column_cascade.hpp).
  s.br1.assign(size_t(k), T(0)), s.br2.assign(size_t(k), T(0));
  const auto& kern = active_reduction_kernels<T>();
  for (int64_t kk = 0; kk < k; ++kk) kern.sum_and_weighted(d.B + kk * n, s.wn.data(), n, &s.br1[size_t(kk)], &s.br2[size_t(kk)]);
  if (o_.check_columns) {
    s.ca1.assign(size_t(k), T(0)), s.ca2.assign(size_t(k), T(0));
    // A cascade block of rows at a time: row i adds A_i to the first
    // block (as fma(1, a, b): the add's rounding) and w_i A_i to the second,
    // rows in order (axpy2_rows, the row-by-row loops' bits).
    column_cascade<T> ca1(k, s.ca1.data()), ca2(k, s.ca2.data());
    T ones[k_block_rows];
    std::fill(ones, ones + k_block_rows, T(1));
    for (int64_t i0 = 0; i0 < m; i0 += k_block_rows) {
      const int64_t rows = std::min<int64_t>(k_block_rows, m - i0);
      kern.axpy2_rows(ones, s.wm.data() + i0, d.A + i0 * k, k, rows, k, ca1.block(), ca2.block());
      for (int64_t i = i0; i < i0 + rows; ++i) ca1.row_done(i, m), ca2.row_done(i, m);
    }
  }
  policy_.encode(d);
}

// Reference checksums of row i: A_i as the kernel read it times the encoded B.
template <class Policy>
template <class T>
void checksum_abft<Policy>::row_refs(const gemm_data<T>& d, checks<T>& c, int64_t i) {
  const auto& s = st<T>();
  const int64_t k = d.shape.k;
  T a = 0, b = 0;  // A_i (B r1), A_i (B r2): the dispatched kernel's fixed lane order
  if (policy_.depends().row_stats) {  // and the policy's statistics of the row, in the same read
    row_stats& r = c.a_rows[size_t(i)];
    active_reduction_kernels<T>().dot2_sum_max_min(d.A + i * k, s.br1.data(), s.br2.data(), k, &a, &b, &r.sum, &r.max, &r.min);
  } else {
    active_reduction_kernels<T>().dot2(d.A + i * k, s.br1.data(), s.br2.data(), k, &a, &b);
  }
  if (!o_.fused && o_.round_reference_to_output && d.out_fmt->bits < int(8 * sizeof(T)))
    a = T(round_to(*d.out_fmt, double(a))), b = T(round_to(*d.out_fmt, double(b)));
  c.row_ref[size_t(i)] = a, c.row_ref2[size_t(i)] = b;
}

template <class Policy>
template <class T>
void checksum_abft<Policy>::row_sums(const gemm_data<T>& d, checks<T>& c, int64_t i) {
  const int64_t n = d.shape.n;
  const T* w = st<T>().wn.data();
  T s1 = 0, s2 = 0;  // C_i r1, C_i r2: the dispatched kernel's fixed lane order
  active_reduction_kernels<T>().sum_and_weighted(checked(d) + i * n, w, n, &s1, &s2);
  c.s1[size_t(i)] = s1, c.s2[size_t(i)] = s2;
}

// Reference checksums of column j: the encoded A times B_j as the kernel read it.
template <class Policy>
template <class T>
void checksum_abft<Policy>::col_refs(const gemm_data<T>& d, checks<T>& c, int64_t j) {
  const auto& s = st<T>();
  const int64_t n = d.shape.n, k = d.shape.k;  // named variables: the lambdas capture them (clang 14)
  const T* bj = d.B + j;
  T a = cascade_one<T>(k, [&](int64_t kk, T p) { return std::fma(s.ca1[size_t(kk)], bj[kk * n], p); });
  T b = cascade_one<T>(k, [&](int64_t kk, T p) { return std::fma(s.ca2[size_t(kk)], bj[kk * n], p); });
  if (!o_.fused && o_.round_reference_to_output && d.out_fmt->bits < int(8 * sizeof(T)))
    a = T(round_to(*d.out_fmt, double(a))), b = T(round_to(*d.out_fmt, double(b)));
  c.col_ref[size_t(j)] = a, c.col_ref2[size_t(j)] = b;
}

template <class Policy>
template <class T>
void checksum_abft<Policy>::col_sums(const gemm_data<T>& d, checks<T>& c, int64_t j) {
  const int64_t m = d.shape.m, n = d.shape.n;  // named variables: the lambda captures them (clang 14)
  const T* out = checked(d) + j;
  c.c1[size_t(j)] = cascade_one<T>(m, [&](int64_t i, T p) { return p + out[i * n]; });
}

template <class Policy>
template <class T>
check_context<T> checksum_abft<Policy>::context(const gemm_data<T>& d, const checks<T>& c) const {
  const bool ref_rounded = !o_.fused && o_.round_reference_to_output && d.out_fmt->bits < int(8 * sizeof(T));
  return {&d, checked(d), &c.row_ref, &c.col_ref, o_.fused, o_.fused ? &fp32() : d.out_fmt,
          policy_.depends().row_stats ? &c.a_rows : nullptr, ref_rounded};
}

template <class Policy>
template <class T>
void checksum_abft<Policy>::compute_all(const gemm_data<T>& d, checks<T>& c) {
  const auto [m, n, k] = d.shape;
  for (auto* v : {&c.row_ref, &c.row_ref2, &c.s1, &c.s2}) v->assign(size_t(m), T(0));
  c.row_T.assign(size_t(m), 0.0);
  if (policy_.depends().row_stats) c.a_rows.assign(size_t(m), row_stats{});
  if (o_.check_columns) {
    for (auto* v : {&c.col_ref, &c.col_ref2, &c.c1}) v->assign(size_t(n), T(0));
    c.col_T.assign(size_t(n), 0.0);
  }
  // One sweep over the rows: row i of A (reference checksums, then the
  // policy's row threshold, read again while in cache) and row i of C (row
  // sums and its share of the column sums, in one read). Per row and per
  // column the operations and their order are those of row_refs, row_sums,
  // row_threshold and col_sums, so the bits are the same as one at a time.
  const auto ctx = context(d, c);
  const T* out = checked(d);
  const auto& kern = active_reduction_kernels<T>();
  const T* w = st<T>().wn.data();
  if (o_.check_columns) {
    column_cascade<T> col(n, c.c1.data());  // the column sums in col_sums's cascade
    for (int64_t i = 0; i < m; ++i) {
      row_refs(d, c, i);
      kern.sums_and_column(out + i * n, w, n, &c.s1[size_t(i)], &c.s2[size_t(i)], col.block());
      col.row_done(i, m);
      c.row_T[size_t(i)] = policy_.row_threshold(ctx, i);
    }
  } else {
    for (int64_t i = 0; i < m; ++i) {
      row_refs(d, c, i);
      row_sums(d, c, i);
      c.row_T[size_t(i)] = policy_.row_threshold(ctx, i);
    }
  }
  if (o_.check_columns) {
    // The column references in one row-major sweep over B, a block of rows
    // at a time: each column's sum in col_refs's cascade, memory read
    // contiguously.
    const auto& s = st<T>();
    T* r1 = c.col_ref.data();
    T* r2 = c.col_ref2.data();
    column_cascade<T> ref1(n, r1), ref2(n, r2);
    for (int64_t kk = 0; kk < k; kk += k_block_rows) {
      const int64_t rows = std::min(k_block_rows, k - kk);
      kern.axpy2_rows(&s.ca1[size_t(kk)], &s.ca2[size_t(kk)], d.B + kk * n, n, rows, n, ref1.block(), ref2.block());
      ref1.row_done(kk + rows - 1, k), ref2.row_done(kk + rows - 1, k);
    }
    if (!o_.fused && o_.round_reference_to_output && d.out_fmt->bits < int(8 * sizeof(T)))
      for (int64_t j = 0; j < n; ++j) r1[j] = T(round_to(*d.out_fmt, double(r1[j]))), r2[j] = T(round_to(*d.out_fmt, double(r2[j])));
  }
  if (o_.check_columns) {
    for (int64_t j = 0; j < n; ++j) c.col_T[size_t(j)] = policy_.col_threshold(ctx, j);
  }
}

template <class Policy>
template <class T>
verdict checksum_abft<Policy>::verify_t(const gemm_data<T>& d) {
  auto& s = st<T>();
  compute_all(d, s.work);
  const verdict v = finish(d, s.work);
  remember(s.work);
  return v;
}

// Per-check details for explain(): D1 per row and column and its threshold.
template <class Policy>
template <class T>
void checksum_abft<Policy>::remember(const checks<T>& c) {
  last_.row_diff.resize(c.s1.size()), last_.row_thr.resize(c.s1.size());
  last_.col_diff.resize(c.c1.size()), last_.col_thr.resize(c.c1.size());
  for (size_t i = 0; i < c.s1.size(); ++i)
    last_.row_diff[i] = double(c.s1[i]) - double(c.row_ref[i]), last_.row_thr[i] = c.row_T[i] * o_.threshold_scale;
  for (size_t j = 0; j < c.c1.size(); ++j)
    last_.col_diff[j] = double(c.c1[j]) - double(c.col_ref[j]), last_.col_thr[j] = c.col_T[j] * o_.threshold_scale;
  last_.on_output = policy_.depends().on_output, last_.valid = true;
}

template <class Policy>
nlohmann::json checksum_abft<Policy>::explain() const {
  if (!last_.valid) return nullptr;
  auto entry = [&](size_t idx, double diff, double t) {
    const nlohmann::json d = finite_or_null(diff);
    if (!std::isfinite(t) && !last_.on_output)  // the bound overflowed from the inputs: cannot decide
      return nlohmann::json{{"index", idx}, {"difference", d}, {"threshold", nullptr}, {"failed", false}, {"cannot_check", true}};
    return nlohmann::json{{"index", idx}, {"difference", d}, {"threshold", t}, {"failed", !(std::fabs(diff) <= t)}};
  };
  nlohmann::json rows = nlohmann::json::array(), cols = nlohmann::json::array();
  for (size_t i = 0; i < last_.row_diff.size(); ++i) rows.push_back(entry(i, last_.row_diff[i], last_.row_thr[i]));
  for (size_t j = 0; j < last_.col_diff.size(); ++j) cols.push_back(entry(j, last_.col_diff[j], last_.col_thr[j]));
  // Moved in, not copied through a braced list: cheaper, and the clang 14 fuzz
  // build's LeakSanitizer reported those copies leaked (seeds case5/6 of
  // kernels_diff; a minimal program with the same list did not leak).
  nlohmann::json out = nlohmann::json::object();
  out["rows"] = std::move(rows);
  out["columns"] = std::move(cols);
  return out;
}

template <class Policy>
template <class T>
verdict checksum_abft<Policy>::finish(const gemm_data<T>& d, const checks<T>& c) const {
  const auto [m, n, k] = d.shape;
  const T* out = checked(d);
  verdict v{false, 0.0, {}, -1, -1, std::numeric_limits<double>::quiet_NaN()};
  const double inf = std::numeric_limits<double>::infinity();
  // A threshold read from the inputs alone that overflowed (inputs so large
  // that the error bound is not representable) cannot decide anything: the
  // check neither flags nor locates, and the verdict says how many checks
  // could not (cannot_check). A threshold that reads the output and is not
  // finite, or a non-finite difference, is a symptom of an Inf/NaN: it flags.
  const bool reads_output = policy_.depends().on_output;
  int64_t cannot = 0, decided = 0;
  auto score_of = [&](double diff, double thr) {
    if (!reads_output && !std::isfinite(thr * o_.threshold_scale)) return ++cannot, -1.0;
    ++decided;
    if (!std::isfinite(diff)) return inf;
    const double t = thr * o_.threshold_scale;
    return t > 0 ? std::fabs(diff) / t : (diff != 0 ? inf : 0.0);
  };
  double worst_row_score = -1, worst_d1 = 0, worst_d2 = 0, sum_T = 0, sum_D = 0;
  int64_t worst_row = -1;
  for (int64_t i = 0; i < m; ++i) {
    const double d1 = double(c.s1[size_t(i)]) - double(c.row_ref[size_t(i)]);
    const double d2 = double(c.s2[size_t(i)]) - double(c.row_ref2[size_t(i)]);
    const double sc = score_of(d1, c.row_T[size_t(i)]);
    sum_T += c.row_T[size_t(i)], sum_D += std::fabs(d1);
    if (sc > worst_row_score) worst_row_score = sc, worst_row = i, worst_d1 = d1, worst_d2 = d2;
  }
  v.score = worst_row_score;
  double worst_col_score = -1;
  int64_t worst_col = -1;
  if (o_.check_columns) {
    for (int64_t j = 0; j < n; ++j) {
      const double sc = score_of(double(c.c1[size_t(j)]) - double(c.col_ref[size_t(j)]), c.col_T[size_t(j)]);
      if (sc > worst_col_score) worst_col_score = sc, worst_col = j;
    }
    v.score = std::max(v.score, worst_col_score);
  }
  if (decided == 0) v.score = not_computed;  // no check could say anything
  v.flagged = v.score > 1.0;
  const bool by_columns = o_.localize == localize_by::columns ||
                          (o_.localize == localize_by::automatic && o_.check_columns);
  if (v.flagged && worst_row_score > 1.0 && by_columns && worst_col_score > 1.0) {
    v.located_row = worst_row;
    v.located_col = worst_col;
  } else if (v.flagged && worst_row_score > 1.0 && !by_columns && std::isfinite(worst_d1) && worst_d1 != 0 &&
             std::isfinite(worst_d2)) {
    const double j = std::round(invert_checksum_weight(o_.weights, worst_d2 / worst_d1, n));
    if (j >= 0 && j < double(n)) v.located_row = worst_row, v.located_col = int64_t(j);
  }
  if (v.located_row >= 0) {
    // Eq. (10), C_ij <- C_ij - D1, written as C_ij <- A_i (B r1) - sum_{j' != j} C_ij'
    // (the same value in exact arithmetic): a huge fault would otherwise absorb
    // the rest of the row sum and cancel to zero.
    const T* row = out + v.located_row * n;
    T partial = 0;
    for (int64_t jj = 0; jj < n; ++jj)
      if (jj != v.located_col) partial += row[jj];
    v.corrected_value = double(c.row_ref[size_t(v.located_row)]) - double(partial);
  }
  if (cannot > 0) v.metrics.emplace_back("cannot_check", double(cannot));
  // Tightness: thresholds against the actual verification difference.
  v.metrics.emplace_back("threshold", sum_T / double(m));
  v.metrics.emplace_back("computed_diff", sum_D / double(m));
  if (d.exact_row_errors) {
    double sum_E = 0, min_margin = inf;
    for (int64_t i = 0; i < m; ++i) {
      sum_E += d.exact_row_errors[i];
      if (d.exact_row_errors[i] > 0) min_margin = std::min(min_margin, c.row_T[size_t(i)] / d.exact_row_errors[i]);
    }
    v.metrics.emplace_back("actual_diff", sum_E / double(m));
    if (sum_E > 0) v.metrics.emplace_back("tightness", sum_T / sum_E);
    if (std::isfinite(min_margin)) v.metrics.emplace_back("min_margin", min_margin);
  }
  return v;
}

}  // namespace sdc
