// Fixed tolerances, as many deployed systems use (classic ABFT, Huang & Abraham
// 1984). fixed_rel: |D1| > rel_tol * scale, scale = sum_j |C_ij| ("abs_rowsum",
// the scale rounding errors grow with) or |A_i (B r1)| ("checksum", the
// textbook choice, which cancels on zero-mean data). fixed_abs: |D1| > abs_tol.
// rel_tol may be "Ku": K unit roundoffs of the output format.
#include <cmath>

#include "detectors/gemm/abft_checksums.hpp"

namespace sdc {
namespace {

class fixed_rel_policy {
 public:
  fixed_rel_policy(double rel, bool abs_scale) : rel_(rel), abs_scale_(abs_scale) {}
  template <class T>
  void encode(const gemm_data<T>&) {}
  policy_dependencies depends() const { return {!abs_scale_, !abs_scale_, abs_scale_}; }
  template <class T>
  double row_threshold(const check_context<T>& c, int64_t i) const {
    if (!abs_scale_) return rel_ * std::fabs(double((*c.row_ref)[size_t(i)]));
    const int64_t n = c.d->shape.n;
    T mag = 0;
    for (int64_t j = 0; j < n; ++j) mag += std::fabs(c.out[i * n + j]);
    return rel_ * double(mag);
  }
  template <class T>
  double col_threshold(const check_context<T>& c, int64_t j) const {
    if (!abs_scale_) return rel_ * std::fabs(double((*c.col_ref)[size_t(j)]));
    const auto [m, n, k] = c.d->shape;
    T mag = 0;
    for (int64_t i = 0; i < m; ++i) mag += std::fabs(c.out[i * n + j]);
    return rel_ * double(mag);
  }

 private:
  double rel_;
  bool abs_scale_;
};

class fixed_abs_policy {
 public:
  explicit fixed_abs_policy(double tol) : tol_(tol) {}
  template <class T>
  void encode(const gemm_data<T>&) {}
  policy_dependencies depends() const { return {}; }
  template <class T>
  double row_threshold(const check_context<T>&, int64_t) const { return tol_; }
  template <class T>
  double col_threshold(const check_context<T>&, int64_t) const { return tol_; }

 private:
  double tol_;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "fixed_rel", "classic ABFT: fixed relative tolerance (Huang & Abraham; 001 eqs. 1-5)",
                            [] {
                              auto p = abft_common_params();
                              p.push_back({"rel_tol", param_spec::type::tolerance, "8u", "a number, or \"Ku\" unit roundoffs of the output"});
                              p.push_back({"scale", param_spec::type::choice, "abs_rowsum",
                                           "relative to sum_j |C_ij| or to |checksum|", {"abs_rowsum", "checksum"}});
                              return p;
                            }(),
                            [](const detector_params& p, const detector_context&) {
                              return std::make_unique<checksum_abft<fixed_rel_policy>>(
                                  read_abft_options(p), fixed_rel_policy(p.number("rel_tol"), p.choice("scale") == "abs_rowsum"));
                            }});

SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "fixed_abs", "classic ABFT: fixed absolute tolerance",
                            [] {
                              auto p = abft_common_params();
                              p.push_back({"abs_tol", param_spec::type::number, 1e-3, "absolute tolerance on |D1|"});
                              return p;
                            }(),
                            [](const detector_params& p, const detector_context&) {
                              return std::make_unique<checksum_abft<fixed_abs_policy>>(read_abft_options(p),
                                                                                      fixed_abs_policy(p.number("abs_tol")));
                            }});

}  // namespace
}  // namespace sdc
