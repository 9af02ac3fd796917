// The deterministic worst-case bound (Higham, Accuracy and Stability of
// Numerical Algorithms, ch. 3: |fl(x.y) - x.y| <= gamma_n |x|.|y|, gamma_n = nu/(1-nu)).
// The row check compares fl(sum_j C_ij) with fl(A_i fl(B r1)); both paths are
// sums of the same K*N products with at most K+N roundings each, so
//   |D1_i| <= 2 gamma_{K+N} sum_k |A_ik| sum_j |B_kj| + u_out (1 + gamma_N) sum_j |C_ij|
// where u is the accumulator's unit roundoff and u_out that of the checked
// values when they were rounded to a narrower output (offline bf16/fp16).
// Columns: the same with M in place of N.
#include <cmath>

#include "detectors/abft_checksums.hpp"

namespace sdc {
namespace {

double gamma_n(double n, double u) { return n * u / (1 - n * u); }

class higham_policy {
 public:
  template <class T>
  void encode(const gemm_data<T>& d) {
    const auto [m, n, k] = d.shape;
    abs_b_.assign(size_t(k), 0.0), abs_a_.assign(size_t(k), 0.0);
    for (int64_t kk = 0; kk < k; ++kk) {
      for (int64_t j = 0; j < n; ++j) abs_b_[size_t(kk)] += std::fabs(double(d.B[kk * n + j]));
      for (int64_t i = 0; i < m; ++i) abs_a_[size_t(kk)] += std::fabs(double(d.A[i * k + kk]));
    }
  }

  template <class T>
  void thresholds(const check_context<T>& c, std::vector<double>& rows, std::vector<double>& cols) {
    const auto [m, n, k] = c.d->shape;
    const double u = std::ldexp(1.0, -(std::numeric_limits<T>::digits));
    const double u_out = c.checked_fmt->bits < int(8 * sizeof(T)) ? c.checked_fmt->unit_roundoff() : 0.0;
    rows.assign(size_t(m), 0.0), cols.assign(size_t(n), 0.0);
    for (int64_t i = 0; i < m; ++i) {
      double ab = 0, ac = 0;
      for (int64_t kk = 0; kk < k; ++kk) ab += std::fabs(double(c.d->A[i * k + kk])) * abs_b_[size_t(kk)];
      for (int64_t j = 0; j < n; ++j) ac += std::fabs(double(c.out[i * n + j]));
      rows[size_t(i)] = 2 * gamma_n(double(k + n), u) * ab + u_out * (1 + gamma_n(double(n), u)) * ac;
    }
    for (int64_t j = 0; j < n; ++j) {
      double ab = 0, ac = 0;
      for (int64_t kk = 0; kk < k; ++kk) ab += std::fabs(double(c.d->B[kk * n + j])) * abs_a_[size_t(kk)];
      for (int64_t i = 0; i < m; ++i) ac += std::fabs(double(c.out[i * n + j]));
      cols[size_t(j)] = 2 * gamma_n(double(k + m), u) * ab + u_out * (1 + gamma_n(double(m), u)) * ac;
    }
  }

 private:
  std::vector<double> abs_b_, abs_a_;
};

SDCBENCH_REGISTER_DETECTOR({"gemm", "higham",
                            "deterministic worst-case bound 2 gamma_{K+N} |A||B| per check (Higham ch. 3)",
                            abft_common_params(), [](const detector_params& p, const detector_context&) {
                              return std::make_unique<checksum_abft<higham_policy>>(read_abft_options(p), higham_policy{});
                            }});

}  // namespace
}  // namespace sdc
