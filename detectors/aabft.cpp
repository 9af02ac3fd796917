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

#include "detectors/abft_checksums.hpp"

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

class aabft_policy {
 public:
  enum class y_mode { fixed, computed, p_largest };
  aabft_policy(y_mode mode, double y, int64_t p, int t) : mode_(mode), y_(y), p_(p), t_(t) {}

  template <class T>
  void encode(const gemm_data<T>& d) {
    const auto [m, n, k] = d.shape;
    rowsum_b_.assign(size_t(k), 0.0), colsum_a_.assign(size_t(k), 0.0);
    for (int64_t kk = 0; kk < k; ++kk) {
      for (int64_t j = 0; j < n; ++j) rowsum_b_[size_t(kk)] += double(d.B[kk * n + j]);
      rowsum_b_[size_t(kk)] = std::fabs(rowsum_b_[size_t(kk)]);
      for (int64_t i = 0; i < m; ++i) colsum_a_[size_t(kk)] += double(d.A[i * k + kk]);
      colsum_a_[size_t(kk)] = std::fabs(colsum_a_[size_t(kk)]);
    }
  }

  template <class T>
  void thresholds(const check_context<T>& c, std::vector<double>& rows, std::vector<double>& cols) {
    const auto [m, n, k] = c.d->shape;
    const int t = t_ > 0 ? t_ : paper_t(*c.d->dtype);
    const double base = 3.0 * aabft_sigma_coefficient(double(k)) * std::ldexp(1.0, -t);
    rows.assign(size_t(m), base * y_), cols.assign(size_t(n), base * y_);
    if (mode_ == y_mode::fixed) return;
    if (mode_ == y_mode::computed) {
      double max_a = 0, max_b = 0;
      for (int64_t i = 0; i < m * k; ++i) max_a = std::max(max_a, std::fabs(double(c.d->A[i])));
      for (int64_t i = 0; i < k * n; ++i) max_b = std::max(max_b, std::fabs(double(c.d->B[i])));
      const double max_rb = *std::max_element(rowsum_b_.begin(), rowsum_b_.end());
      const double max_ca = *std::max_element(colsum_a_.begin(), colsum_a_.end());
      std::fill(rows.begin(), rows.end(), base * max_a * max_rb);
      std::fill(cols.begin(), cols.end(), base * max_b * max_ca);
      return;
    }
    const double rb = mean_of_largest(rowsum_b_, p_), ca = mean_of_largest(colsum_a_, p_);
    std::vector<double> v(static_cast<size_t>(k));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t kk = 0; kk < k; ++kk) v[size_t(kk)] = std::fabs(double(c.d->A[i * k + kk]));
      rows[size_t(i)] = base * mean_of_largest(v, p_) * rb;
    }
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t kk = 0; kk < k; ++kk) v[size_t(kk)] = std::fabs(double(c.d->B[kk * n + j]));
      cols[size_t(j)] = base * mean_of_largest(v, p_) * ca;
    }
  }

 private:
  y_mode mode_;
  double y_;
  int64_t p_;
  int t_;
  std::vector<double> rowsum_b_, colsum_a_;
};

SDCBENCH_REGISTER_DETECTOR({
    "gemm", "aabft", "A-ABFT: probabilistic inner-product bound, threshold 3 sigma (001 eq. 26)",
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
