// A-ABFT (Braun, Halder, Wunderlich, DSN 2014) as 001_e8c16cbdc32a8eac.txt eq. (26)
// states it: sigma <= sqrt((n(n+1)(n+1/2) + 2n) / 24) * 2^-t * y, threshold 3 sigma,
// n the inner-product length (K for row checks, K for column checks).
//   t: "paper" = 53 for fp64 and 23 for fp32 as 001 states; for bf16 8 and fp16 11,
//      the values that reproduce 001 Table 6 (u = 2^-8); or a number.
//   y: a number (21: the empirical value 001 uses for Tables 4-5), "computed"
//      = max|A| * max|rowsum(B)| (Table 6; columns: max|B| * max|colsum(A)|), or
//      "p_largest": per row, (mean of the p largest |A_mk|) * (mean of the p
//      largest |rowsum(B)_k|): our reading of A-ABFT's p-largest-values choice.
#include <algorithm>
#include <cmath>

#include "detectors/gemm/abft_checksums.hpp"

namespace sdc {
namespace {

double aabft_sigma_coefficient(double n) { return std::sqrt((n * (n + 1) * (n + 0.5) + 2 * n) / 24.0); }

int paper_t(const format& f) {
  if (&f == &fp64()) return 53;
  if (&f == &fp32()) return 23;
  if (&f == &bf16()) return 8;
  return 11;  // fp16
}

double mean_of_largest(std::vector<double> v, int64_t p) {
  p = std::min<int64_t>(p, int64_t(v.size()));
  std::partial_sort(v.begin(), v.begin() + p, v.end(), std::greater<>());
  double s = 0;
  for (int64_t i = 0; i < p; ++i) s += v[size_t(i)];
  return s / double(p);
}

// mean_of_largest of |x_i| (i < n, with a stride), in one pass: the p
// largest kept in descending order in `top` (no sort, no copy of x), summed
// in that order, so the same bits. NaNs are passed over.
template <class T>
double mean_of_largest_abs(const T* x, int64_t n, int64_t stride, int64_t p, std::vector<double>& top) {
  p = std::min(p, n);
  top.assign(size_t(p), -1.0);  // below any |x|
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::fabs(double(x[i * stride]));
    if (!(v > top[size_t(p - 1)])) continue;  // the common case: one compare
    int64_t q = p - 1;
    for (; q > 0 && top[size_t(q - 1)] < v; --q) top[size_t(q)] = top[size_t(q - 1)];
    top[size_t(q)] = v;
  }
  double s = 0;
  for (int64_t i = 0; i < p; ++i) s += top[size_t(i)];
  return s / double(p);
}

class aabft_policy {
 public:
  enum class y_mode { fixed, computed, p_largest };
  aabft_policy(y_mode mode, double y, int64_t p, int t) : mode_(mode), y_(y), p_(p), t_(t) {}

  // The computed y comes from the operands at encoding time (max|A|, max|B| and
  // the checksum magnitudes), like the checksums themselves.
  template <class T>
  void encode(const gemm_data<T>& d) {
    const auto [m, n, k] = d.shape;
    rowsum_b_.assign(size_t(k), 0.0), colsum_a_.assign(size_t(k), 0.0);
    max_a_ = max_b_ = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      for (int64_t j = 0; j < n; ++j) rowsum_b_[size_t(kk)] += double(d.B[kk * n + j]);
      rowsum_b_[size_t(kk)] = std::fabs(rowsum_b_[size_t(kk)]);
    }
    for (int64_t i = 0; i < m; ++i)  // A row by row: each column summed down the rows, in order
      for (int64_t kk = 0; kk < k; ++kk) colsum_a_[size_t(kk)] += double(d.A[i * k + kk]);
    for (auto& c : colsum_a_) c = std::fabs(c);
    for (int64_t i = 0; i < m * k; ++i) max_a_ = std::max(max_a_, std::fabs(double(d.A[i])));
    for (int64_t i = 0; i < k * n; ++i) max_b_ = std::max(max_b_, std::fabs(double(d.B[i])));
    max_rb_ = *std::max_element(rowsum_b_.begin(), rowsum_b_.end());
    max_ca_ = *std::max_element(colsum_a_.begin(), colsum_a_.end());
    mean_rb_ = mean_of_largest(rowsum_b_, p_), mean_ca_ = mean_of_largest(colsum_a_, p_);
    // p_largest column thresholds read B alone: once per weight matrix, as
    // V-ABFT's (a fault in B does not move its own column's threshold).
    col_y_.clear();
    if (mode_ == y_mode::p_largest) {
      std::vector<double> top;
      col_y_.resize(size_t(n));
      for (int64_t j = 0; j < n; ++j) col_y_[size_t(j)] = mean_of_largest_abs(d.B + j, k, n, p_, top) * mean_ca_;
    }
  }

  policy_dependencies depends() const { return {mode_ == y_mode::p_largest, false, false}; }

  template <class T>
  double row_threshold(const check_context<T>& c, int64_t i) const {
    const int64_t k = c.d->shape.k;
    if (mode_ == y_mode::fixed) return base(c) * y_;
    if (mode_ == y_mode::computed) return base(c) * max_a_ * max_rb_;
    thread_local std::vector<double> top;
    return base(c) * mean_of_largest_abs(c.d->A + i * k, k, 1, p_, top) * mean_rb_;
  }
  template <class T>
  double col_threshold(const check_context<T>& c, int64_t j) const {
    if (mode_ == y_mode::fixed) return base(c) * y_;
    if (mode_ == y_mode::computed) return base(c) * max_b_ * max_ca_;
    return base(c) * col_y_[size_t(j)];
  }

 private:
  template <class T>
  double base(const check_context<T>& c) const {
    const int t = t_ > 0 ? t_ : paper_t(*c.d->dtype);
    return 3.0 * aabft_sigma_coefficient(double(c.d->shape.k)) * std::ldexp(1.0, -t);
  }
  y_mode mode_;
  double y_;
  int64_t p_;
  int t_;
  std::vector<double> rowsum_b_, colsum_a_, col_y_;  // col_y_: column j's p_largest y (encoded)
  double max_a_ = 0, max_b_ = 0, max_rb_ = 0, max_ca_ = 0, mean_rb_ = 0, mean_ca_ = 0;
};

SDCBENCH_REGISTER_DETECTOR({
    view_kind::gemm, "aabft", "A-ABFT: probabilistic inner-product bound, threshold 3 sigma (001 eq. 26)",
    [] {
      auto p = abft_common_params();
      p.push_back({"y", param_spec::type::number_or, 21.0, "scale y: a number (21 in 001 Tables 4-5), \"computed\" or \"p_largest\"",
                   {"computed", "p_largest"}});
      p.push_back({"p", param_spec::type::integer, 4, "how many largest values the p_largest y averages"});
      p.push_back({"t", param_spec::type::number_or, "paper", "mantissa bits t: a number or \"paper\" (53, 23, bf16 8, fp16 11)", {"paper"}});
      return p;
    }(),
    [](const detector_params& p, const detector_context&) {
      using m = aabft_policy::y_mode;
      const m mode = p.is_number("y") ? m::fixed : (p.choice("y") == "computed" ? m::computed : m::p_largest);
      const int t = p.is_number("t") ? int(p.number("t")) : 0;
      return std::make_unique<checksum_abft<aabft_policy>>(
          read_abft_options(p), aabft_policy(mode, p.is_number("y") ? p.number("y") : 0.0, p.integer("p"), t));
    }});

}  // namespace
}  // namespace sdc
