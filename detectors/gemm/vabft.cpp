// V-ABFT (001_e8c16cbdc32a8eac.txt, Algorithm 1 and eq. (23)): per row m,
//   T_m = e_max (N |mu_A| sum_k |mu_Bk|
//               + c_sigma sqrt(N mu_A^2 sum_k s_Bk^2 + N^2 s_A^2 sum_k mu_Bk^2)
//               + c_sigma sqrt(N) s_A sqrt(sum_k s_Bk^2))
// with mu, s^2 the mean and variance of row m of A (K values) and of each row k
// of B (N values). `vabft` bounds each variance by the extrema (Theorem 1,
// eq. (24): s^2 <= (max - mu)(mu - min)); `vabft_exact_variance` uses the true
// (population, 1/n) variance: the ablation. Column checks apply the same
// formula to the transposed product C^T = B^T A^T.
// e_max "table": the paper's values for its CPU class and verification point
// (Table 7 CPU: fp64 6e-16, fp32 4e-7; offline bf16 8e-3 and fp16 1e-3 = ~2u
// of the output, section 3.6; fused bf16/fp16 1e-6, "FP32 level").
// e_max "calibrated": the value `sdcbench calibrate` measured on this machine
// for the cell's dtype, accumulation order and point, at the smallest
// calibrated size >= max(K, N) (sqrt(N) fit beyond), read from `calibration`.
#include <cmath>

#include <fmt/format.h>

#include "detectors/gemm/abft_checksums.hpp"
#include "detectors/gemm/emax_calibration.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

struct moments {
  double mean = 0, var = 0;
};

// Mean and extrema-bound variance (eq. (24)) from a sum, maximum and minimum.
moments extrema_moments(double sum, double mx, double mn, int64_t n) {
  moments m;
  m.mean = sum / double(n);
  m.var = std::max(0.0, (mx - m.mean) * (m.mean - mn));  // eq. (24)
  return m;
}

// Mean and variance (extrema bound or exact) of a contiguous row, summed in
// the dispatched kernel's fixed lane order.
template <class T>
moments row_moments(const T* x, int64_t n, bool exact) {
  double sum = 0, mx = -INFINITY, mn = INFINITY;
  active_reduction_kernels<T>().sum_max_min(x, n, &sum, &mx, &mn);
  if (!exact) return extrema_moments(sum, mx, mn, n);
  moments m;
  m.mean = sum / double(n);
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += (double(x[i]) - m.mean) * (double(x[i]) - m.mean);
  m.var = ss / double(n);
  return m;
}

// The moments of every column of a row-major k x n matrix; each column
// summed sequentially down the rows in fp64 (the dispatched kernel's
// elementwise order: the bits of the plain loop over rows).
template <class T>
std::vector<moments> column_moments(const T* b, int64_t k, int64_t n, bool exact) {
  std::vector<double> sum(static_cast<size_t>(n), 0.0), mx(static_cast<size_t>(n), -INFINITY), mn(static_cast<size_t>(n), INFINITY);
  active_reduction_kernels<T>().column_sum_max_min(b, n, k, n, sum.data(), mx.data(), mn.data());
  std::vector<moments> mo(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) mo[size_t(j)].mean = sum[size_t(j)] / double(k);
  if (!exact) {
    for (int64_t j = 0; j < n; ++j)
      mo[size_t(j)].var = std::max(0.0, (mx[size_t(j)] - mo[size_t(j)].mean) * (mo[size_t(j)].mean - mn[size_t(j)]));
    return mo;
  }
  std::vector<double> ss(static_cast<size_t>(n), 0.0);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      const double dv = double(b[kk * n + j]) - mo[size_t(j)].mean;
      ss[size_t(j)] += dv * dv;
    }
  for (int64_t j = 0; j < n; ++j) mo[size_t(j)].var = ss[size_t(j)] / double(k);
  return mo;
}

// Sums over the "B side" of Algorithm 1 that do not depend on the row m.
struct b_side {
  double abs_mu = 0, mu2 = 0, var = 0;
};

double vabft_threshold(const moments& a, const b_side& b, double n_sum, double e_max, double c_sigma) {
  const double t_det = n_sum * std::fabs(a.mean) * b.abs_mu;
  const double t_var23 = c_sigma * std::sqrt(n_sum * a.mean * a.mean * b.var + n_sum * n_sum * a.var * b.mu2);
  const double t_var4 = c_sigma * std::sqrt(n_sum) * std::sqrt(a.var) * std::sqrt(b.var);
  return e_max * (t_det + t_var23 + t_var4);
}

double table_emax(const format& dtype, bool fused) {
  if (&dtype == &fp64()) return 6e-16;
  if (&dtype == &fp32()) return 4e-7;
  if (fused) return 1e-6;
  if (&dtype == &bf16()) return 8e-3;
  return 1e-3;  // fp16
}

class vabft_policy {
  template <class T>
  double emax(const check_context<T>& c) const { return table_ ? table_emax(*c.d->dtype, c.fused) : e_max_; }

 public:
  vabft_policy(bool exact, double c_sigma, double e_max, bool table) : exact_(exact), c_(c_sigma), e_max_(e_max), table_(table) {}

  // Everything that reads B alone, once per weight matrix (issue 14): the
  // sums over B's rows for the row thresholds, and each column's threshold
  // without e_max (moments of the column of B, with the sums over A's columns).
  template <class T>
  void encode(const gemm_data<T>& d) {
    const auto [m, n, k] = d.shape;
    rows_ = {}, cols_ = {};
    for (int64_t kk = 0; kk < k; ++kk) {  // rows of B (N values each)
      const moments b = row_moments(d.B + kk * n, n, exact_);
      rows_.abs_mu += std::fabs(b.mean), rows_.mu2 += b.mean * b.mean, rows_.var += b.var;
    }
    for (const moments& a : column_moments(d.A, m, k, exact_))  // columns of A (M values each): rows of A^T
      cols_.abs_mu += std::fabs(a.mean), cols_.mu2 += a.mean * a.mean, cols_.var += a.var;
    const std::vector<moments> mo = column_moments(d.B, k, n, exact_);
    col_unit_.resize(size_t(n));
    for (int64_t j = 0; j < n; ++j) col_unit_[size_t(j)] = vabft_threshold(mo[size_t(j)], cols_, double(m), 1.0, c_);
  }

  // Row thresholds read row i of A as the kernel read it; column thresholds
  // are the encoded ones (a fault in B does not move its own threshold, as
  // in a deployment that computes a weight's statistics when it is loaded).
  // With the extrema bound, row i's statistics come with its reference
  // checksums from one read of A (the engine's row_stats: the bits of
  // row_moments); the exact variance reads the row again.
  policy_dependencies depends() const { return {true, false, false, !exact_}; }
  template <class T>
  double row_threshold(const check_context<T>& c, int64_t i) const {
    const auto [m, n, k] = c.d->shape;
    const moments a = c.a_rows ? extrema_moments((*c.a_rows)[size_t(i)].sum, (*c.a_rows)[size_t(i)].max,
                                                 (*c.a_rows)[size_t(i)].min, k)
                               : row_moments(c.d->A + i * k, k, exact_);
    return vabft_threshold(a, rows_, double(n), emax(c), c_);
  }
  template <class T>
  double col_threshold(const check_context<T>& c, int64_t j) const {
    return emax(c) * col_unit_[size_t(j)];
  }

 private:
  bool exact_;
  double c_, e_max_;
  bool table_;
  b_side rows_, cols_;
  std::vector<double> col_unit_;  // column j's threshold for e_max = 1
};

std::vector<param_spec> vabft_params() {
  auto p = abft_common_params();
  p.push_back({"e_max", param_spec::type::number_or, "table",
               "effective error coefficient: a number > 0, \"table\" (001 Tables 2 and 7: fp64 6e-16 and fp32 4e-7 as measured on "
               "an Intel Xeon CPU; bf16 8e-3 / fp16 1e-3 offline, 1e-6 fused) or \"calibrated\" (this machine's, from `calibration`)",
               {"table", "calibrated"}});
  p.push_back({"calibration", param_spec::type::text, "emax-calibration.json",
               "calibration file written by `sdcbench calibrate`: a path, else the name of a file in the data directory (the one shipped: this project's machines)"});
  p.push_back({"c_sigma", param_spec::type::number, 2.5, "confidence multiplier (eq. (23))"});
  return p;
}

std::unique_ptr<detector> make_vabft(const detector_params& p, const detector_context& c, bool exact) {
  const bool numeric = p.is_number("e_max");
  const bool table = !numeric && p.choice("e_max") == "table";
  double e_max = numeric ? p.number("e_max") : 0.0;
  if (numeric && !(e_max > 0)) throw value_error(fmt::format("vabft: e_max: expected a number > 0, \"table\" or \"calibrated\"; got {}", e_max));
  if (!(p.number("c_sigma") > 0)) throw value_error(fmt::format("vabft: c_sigma: expected a number > 0; got {}", p.number("c_sigma")));
  if (!numeric && !table)
    // Looked up at the GEMM's order and at the larger of its K and N (1024 and
    // sequential where no GEMM cell says: check-gemm on a user's matrices).
    // A block-scaled GEMM's own entry (its format's name), not fp32's.
    e_max = calibrated_emax(p.choice("calibration"), std::string(c.gemm && c.gemm->block ? c.gemm->block->name : c.dtype->name), c.gemm ? c.gemm->order.text() : "sequential",
                            p.choice("point"), c.gemm ? std::max(c.gemm->shape.k, c.gemm->shape.n) : 1024);
  return std::make_unique<checksum_abft<vabft_policy>>(read_abft_options(p),
                                                       vabft_policy(exact, p.number("c_sigma"), e_max, table));
}

SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "vabft",
                            "V-ABFT: variance-based adaptive threshold, extrema-variance bound (001 Algorithm 1, eqs. 23-24)",
                            vabft_params(),
                            [](const detector_params& p, const detector_context& c) { return make_vabft(p, c, false); }});
SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "vabft_exact_variance",
                            "V-ABFT with the true row variances instead of the extrema bound (ablation of 001 eq. 24)",
                            vabft_params(),
                            [](const detector_params& p, const detector_context& c) { return make_vabft(p, c, true); }});

}  // namespace
}  // namespace sdc
