// The deterministic worst-case bound (Higham, Accuracy and Stability of
// Numerical Algorithms, ch. 3: |fl(x.y) - x.y| <= gamma_n |x|.|y|, gamma_n = nu/(1-nu)).
// The row check compares fl(sum_j C_ij) with fl(A_i fl(B r1)); both paths are
// sums of the same K*N products with at most K+N roundings each, so
//   |D1_i| <= 2 gamma_{K+N} sum_k |A_ik| sum_j |B_kj| + u_out (1 + gamma_N) sum_j |C_ij|
//             [+ u_out (1 + gamma_{K+N}) sum_k |A_ik| sum_j |B_kj|]
// where u is the accumulator's unit roundoff and u_out that of the checked
// values when they were rounded to a narrower output (offline bf16/fp16);
// the bracketed term when the reference checksum itself was rounded to that
// output (checksum_rounding: output), which bounds |A_i (B r1)| u_out.
// Columns: the same with M in place of N.
#include <cmath>

#include "detectors/gemm/abft_checksums.hpp"

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

  policy_dependencies depends() const { return {true, true, true}; }

  template <class T>
  double row_threshold(const check_context<T>& c, int64_t i) const {
    const auto [m, n, k] = c.d->shape;
    double ab = 0, ac = 0;
    for (int64_t kk = 0; kk < k; ++kk) ab += std::fabs(double(c.d->A[i * k + kk])) * abs_b_[size_t(kk)];
    for (int64_t j = 0; j < n; ++j) ac += std::fabs(double(c.out[i * n + j]));
    return 2 * gamma_n(double(k + n), u<T>()) * ab + u_out<T>(c) * (1 + gamma_n(double(n), u<T>())) * ac +
           ref_term(c, k + n, ab);
  }
  template <class T>
  double col_threshold(const check_context<T>& c, int64_t j) const {
    const auto [m, n, k] = c.d->shape;
    double ab = 0, ac = 0;
    for (int64_t kk = 0; kk < k; ++kk) ab += std::fabs(double(c.d->B[kk * n + j])) * abs_a_[size_t(kk)];
    for (int64_t i = 0; i < m; ++i) ac += std::fabs(double(c.out[i * n + j]));
    return 2 * gamma_n(double(k + m), u<T>()) * ab + u_out<T>(c) * (1 + gamma_n(double(m), u<T>())) * ac +
           ref_term(c, k + m, ab);
  }

 private:
  template <class T>
  static double u() { return std::ldexp(1.0, -std::numeric_limits<T>::digits); }
  // Rounding to a narrower output adds u_out per element to the checked sums.
  template <class T>
  static double u_out(const check_context<T>& c) {
    return c.checked_fmt->bits < int(8 * sizeof(T)) ? c.checked_fmt->unit_roundoff() : 0.0;
  }
  // The reference checksum's own rounding to the output, when it was rounded.
  template <class T>
  static double ref_term(const check_context<T>& c, int64_t len, double ab) {
    return c.ref_rounded ? c.checked_fmt->unit_roundoff() * (1 + gamma_n(double(len), u<T>())) * ab : 0.0;
  }
  std::vector<double> abs_b_, abs_a_;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "higham",
                            "deterministic worst-case bound 2 gamma_{K+N} |A||B| per check (Higham ch. 3)",
                            abft_common_params(), [](const detector_params& p, const detector_context&) {
                              return std::make_unique<checksum_abft<higham_policy>>(read_abft_options(p), higham_policy{});
                            }});

}  // namespace
}  // namespace sdc
