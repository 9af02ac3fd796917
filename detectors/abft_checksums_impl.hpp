// Template bodies of checksum_abft (included by abft_checksums.hpp).
#pragma once
#include <algorithm>
#include <limits>

namespace sdc {

template <class Policy>
template <class T>
void checksum_abft<Policy>::encode_t(const gemm_data<T>& d) {
  auto& s = st<T>();
  const auto [m, n, k] = d.shape;
  s.br1.assign(size_t(k), T(0)), s.br2.assign(size_t(k), T(0));
  for (int64_t kk = 0; kk < k; ++kk) {
    T a = 0, b = 0;
    const T* row = d.B + kk * n;
    for (int64_t j = 0; j < n; ++j) {
      a += row[j];
      b = std::fma(T(checksum_weight(o_.weights, j, n)), row[j], b);
    }
    s.br1[size_t(kk)] = a, s.br2[size_t(kk)] = b;
  }
  if (o_.check_columns) {
    s.ca1.assign(size_t(k), T(0)), s.ca2.assign(size_t(k), T(0));
    for (int64_t i = 0; i < m; ++i) {
      const T w = T(checksum_weight(o_.weights, i, m));
      const T* row = d.A + i * k;
      for (int64_t kk = 0; kk < k; ++kk) {
        s.ca1[size_t(kk)] += row[kk];
        s.ca2[size_t(kk)] = std::fma(w, row[kk], s.ca2[size_t(kk)]);
      }
    }
  }
  policy_.encode(d);
}

template <class Policy>
template <class T>
verdict checksum_abft<Policy>::verify_t(const gemm_data<T>& d) {
  auto& s = st<T>();
  const auto [m, n, k] = d.shape;
  const T* out = o_.fused ? d.acc : d.C;
  // Reference checksums: A as the kernel read it times the encoded B checksums;
  // the encoded A checksums times B as the kernel read it.
  s.row_ref.assign(size_t(m), T(0)), s.row_ref2.assign(size_t(m), T(0));
  for (int64_t i = 0; i < m; ++i) {
    T a = 0, b = 0;
    const T* row = d.A + i * k;
    for (int64_t kk = 0; kk < k; ++kk) {
      a = std::fma(row[kk], s.br1[size_t(kk)], a);
      b = std::fma(row[kk], s.br2[size_t(kk)], b);
    }
    s.row_ref[size_t(i)] = a, s.row_ref2[size_t(i)] = b;
  }
  if (o_.check_columns) {
    s.col_ref.assign(size_t(n), T(0)), s.col_ref2.assign(size_t(n), T(0));
    for (int64_t kk = 0; kk < k; ++kk) {
      const T* row = d.B + kk * n;
      const T c1 = s.ca1[size_t(kk)], c2 = s.ca2[size_t(kk)];
      for (int64_t j = 0; j < n; ++j) {
        s.col_ref[size_t(j)] = std::fma(c1, row[j], s.col_ref[size_t(j)]);
        s.col_ref2[size_t(j)] = std::fma(c2, row[j], s.col_ref2[size_t(j)]);
      }
    }
  }
  if (!o_.fused && o_.round_reference_to_output && d.out_fmt->bits < int(8 * sizeof(T))) {
    for (auto* v : {&s.row_ref, &s.row_ref2, &s.col_ref, &s.col_ref2})
      for (auto& x : *v) x = T(round_to(*d.out_fmt, double(x)));
  }
  const check_context<T> ctx{&d, out, &s.row_ref, &s.col_ref, o_.fused, o_.fused ? &fp32() : d.out_fmt};
  s.col_T.clear();
  policy_.thresholds(ctx, s.row_T, s.col_T);

  verdict v{false, 0.0, {}, -1, -1, std::numeric_limits<double>::quiet_NaN()};
  const double inf = std::numeric_limits<double>::infinity();
  auto score_of = [&](double diff, double thr) {
    if (!std::isfinite(diff) || !std::isfinite(thr)) return inf;
    const double t = thr * o_.threshold_scale;
    return t > 0 ? std::fabs(diff) / t : (diff != 0 ? inf : 0.0);
  };
  double worst_row_score = -1, worst_d1 = 0, worst_d2 = 0, sum_T = 0, sum_D = 0;
  int64_t worst_row = -1;
  for (int64_t i = 0; i < m; ++i) {
    T s1 = 0, s2 = 0;
    const T* row = out + i * n;
    for (int64_t j = 0; j < n; ++j) {
      s1 += row[j];
      s2 = std::fma(T(checksum_weight(o_.weights, j, n)), row[j], s2);
    }
    const double d1 = double(s1) - double(s.row_ref[size_t(i)]);
    const double d2 = double(s2) - double(s.row_ref2[size_t(i)]);
    const double sc = score_of(d1, s.row_T[size_t(i)]);
    sum_T += s.row_T[size_t(i)], sum_D += std::fabs(d1);
    if (sc > worst_row_score) worst_row_score = sc, worst_row = i, worst_d1 = d1, worst_d2 = d2;
  }
  v.score = worst_row_score;
  double worst_col_score = -1;
  int64_t worst_col = -1;
  if (o_.check_columns) {
    std::vector<T> c1(size_t(n), T(0));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c1[size_t(j)] += out[i * n + j];
    for (int64_t j = 0; j < n; ++j) {
      const double sc = score_of(double(c1[size_t(j)]) - double(s.col_ref[size_t(j)]), s.col_T[size_t(j)]);
      if (sc > worst_col_score) worst_col_score = sc, worst_col = j;
    }
    v.score = std::max(v.score, worst_col_score);
  }
  v.flagged = v.score > 1.0;
  const bool by_columns = o_.localize == localize_by::columns ||
                          (o_.localize == localize_by::automatic && o_.check_columns);
  if (v.flagged && worst_row_score > 1.0 && by_columns && worst_col_score > 1.0) {
    v.located_row = worst_row;
    v.located_col = worst_col;
  } else if (v.flagged && worst_row_score > 1.0 && !by_columns && std::isfinite(worst_d1) && worst_d1 != 0 &&
             std::isfinite(worst_d2)) {
    const double j = std::round(invert_checksum_weight(o_.weights, worst_d2 / worst_d1, n));
    if (j >= 0 && j < double(n)) {
      v.located_row = worst_row;
      v.located_col = int64_t(j);
    }
  }
  if (v.located_row >= 0) {
    // Eq. (10), C_ij <- C_ij - D1, written as C_ij <- A_i (B r1) - sum_{j' != j} C_ij'
    // (the same value in exact arithmetic): a huge fault would otherwise absorb
    // the rest of the row sum and cancel to zero.
    const T* row = out + worst_row * n;
    T partial = 0;
    for (int64_t jj = 0; jj < n; ++jj)
      if (jj != v.located_col) partial += row[jj];
    v.corrected_value = double(s.row_ref[size_t(worst_row)]) - double(partial);
  }
  // Tightness: thresholds against the actual verification difference.
  v.metrics.emplace_back("threshold", sum_T / double(m));
  v.metrics.emplace_back("computed_diff", sum_D / double(m));
  if (d.exact_row_errors) {
    double sum_E = 0, min_margin = inf;
    for (int64_t i = 0; i < m; ++i) {
      sum_E += d.exact_row_errors[i];
      if (d.exact_row_errors[i] > 0) min_margin = std::min(min_margin, s.row_T[size_t(i)] / d.exact_row_errors[i]);
    }
    v.metrics.emplace_back("actual_diff", sum_E / double(m));
    if (sum_E > 0) v.metrics.emplace_back("tightness", sum_T / sum_E);
    if (std::isfinite(min_margin)) v.metrics.emplace_back("min_margin", min_margin);
  }
  return v;
}

}  // namespace sdc
