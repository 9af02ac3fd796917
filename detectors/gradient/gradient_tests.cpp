// Detectors on the log gradient norms of 000_60f7924e74842bcb.txt. They see a
// sample of values, so each is registered for the `gradient` workload (V =
// log-norms) and for the `mixture` workload (Theorem 1's mixtures, Appendix
// A's comparisons). Each flags a non-finite value outright.
//   folding_w1  Algorithm 1: folding test; if multimodal (Phi < 1, and p-value
//               < alpha when alpha < 1), W1 between the two sides of the pivot;
//               SDC iff W1 > tau (default 3). Score = W1 / tau; when unimodal
//               W1 is not computed, so score and metric w1 are not_computed
//               (written null).
//   folding     the folding test alone: SDC iff multimodal. Score = 1 / Phi.
//   w1          the Wasserstein step alone, pivot = the median. Score = W1 / tau.
//   robust_z    (max V - median V) / (1.4826 MAD) > z: the outlier check many
//               training stacks run on gradient norms. Score = z-score / z.
//   dip         Hartigan's dip test: SDC iff p-value < alpha (default 0.05).
//               Score = sqrt(m) * dip (the table's scale).
//   silverman   Silverman's critical-bandwidth test, smoothed bootstrap with B
//               samples: SDC iff p-value < alpha (0.05). Score = 1 - p-value.
//   uu_test     the UU-test at alpha (0.01): SDC iff no unimodal uniform-mixture
//               model fits. Score = 1 if multimodal, else 0.
//   nan_inf     any non-finite log-norm. Score = their count.
#include <cmath>
#include <functional>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "detectors/gradient/sample_detector.hpp"
#include "detectors/gradient/stats/dip.hpp"
#include "detectors/gradient/stats/silverman.hpp"
#include "detectors/gradient/stats/unimodality.hpp"
#include "detectors/gradient/stats/uu_test.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();

int64_t count_nonfinite(const gradient_data& d) {
  int64_t bad = 0;
  for (int64_t i = 0; i < d.m; ++i) bad += !std::isfinite(d.log_norms[i]);
  return bad;
}

verdict nonfinite_verdict(int64_t bad) {
  verdict v{true, k_inf};
  v.metrics.emplace_back("nonfinite_norms", double(bad));
  return v;
}

class folding_w1 final : public gradient_detector {
 public:
  folding_w1(double tau, double alpha, bool with_w1) : tau_(tau), alpha_(alpha), with_w1_(with_w1) {}
  verdict verify(const gradient_data& d) override {
    if (auto bad = count_nonfinite(d)) return nonfinite_verdict(bad);
    const std::span<const double> v(d.log_norms, size_t(d.m));
    const auto f = stats::folding_test(v);
    const bool multimodal = !f.unimodal && (alpha_ >= 1 || f.p_value < alpha_);
    verdict out;
    out.metrics = {{"phi", f.phi}, {"p_value", f.p_value}, {"pivot", f.pivot}};
    if (!with_w1_) {
      out.flagged = multimodal;
      out.score = f.phi > 0 ? 1 / f.phi : k_inf;
      return out;
    }
    // Algorithm 1 stops at a unimodal folding test: no W1, so no score.
    const double w = multimodal ? stats::pivot_split_w1(v, f.pivot) : not_computed;
    out.metrics.emplace_back("w1", w);
    out.flagged = multimodal && w > tau_;
    out.score = multimodal ? w / tau_ : not_computed;
    return out;
  }

 private:
  double tau_, alpha_;
  bool with_w1_;
};

// A test that is a function of the sample alone: the wrapper flags non-finite
// values first, then hands the finite sample to the function.
class sample_detector final : public gradient_detector {
 public:
  using test_fn = std::function<verdict(std::span<const double>)>;
  explicit sample_detector(test_fn f) : f_(std::move(f)) {}
  verdict verify(const gradient_data& d) override {
    if (auto bad = count_nonfinite(d)) return nonfinite_verdict(bad);
    return f_(std::span<const double>(d.log_norms, size_t(d.m)));
  }

 private:
  test_fn f_;
};

std::unique_ptr<detector> make_sample_detector(sample_detector::test_fn f) {
  return std::make_unique<sample_detector>(std::move(f));
}

verdict median_w1(std::span<const double> v, double tau) {
  const double w = stats::pivot_split_w1(v, stats::median(std::vector<double>(v.begin(), v.end())));
  verdict out{w > tau, w / tau};
  out.metrics.emplace_back("w1", w);
  return out;
}

verdict robust_z(std::span<const double> v, double zmax) {
  const double z = stats::robust_z_max(v);
  verdict out{!(z <= zmax), z / zmax};
  out.metrics.emplace_back("z", std::isfinite(z) ? z : 1e300);
  return out;
}

verdict dip(std::span<const double> v, double alpha) {
  const auto r = stats::dip_test(v);
  verdict out{r.p_value < alpha, std::sqrt(double(v.size())) * r.dip};
  out.metrics = {{"dip", r.dip}, {"p_value", r.p_value}, {"mode_lo", r.mode_lo}, {"mode_hi", r.mode_hi}};
  return out;
}

verdict silverman(std::span<const double> v, double alpha, int64_t B, uint64_t seed) {
  const auto r = stats::silverman_test(v, B, seed);
  verdict out{r.p_value < alpha, 1 - r.p_value};
  out.metrics = {{"h_crit", r.h_crit}, {"p_value", r.p_value}};
  return out;
}

verdict uu(std::span<const double> v, double alpha) {
  const auto r = stats::uu_test(v, alpha);
  verdict out{!r.unimodal, r.unimodal ? 0.0 : 1.0};
  out.metrics = {{"segments", double(r.segments)}, {"ks_tests", double(r.ks_tests)}};
  return out;
}

// A recorder, not a detector: records the histogram of the values (never flags), so a
// result set holds the distribution's shape (000 Figure 2): series `count`
// over the bins of [lo, hi), and metrics below / above. The engine's clean.* and
// faulty.* means are the average histograms of clean and corrupted samples.
class histogram final : public gradient_detector {
 public:
  histogram(double lo, double hi, int bins) : lo_(lo), hi_(hi), bins_(bins) {}
  verdict verify(const gradient_data& d) override {
    std::vector<double> count(size_t(bins_ + 2), 0.0);
    for (int64_t i = 0; i < d.m; ++i) {
      const double x = d.log_norms[i];
      if (!(x >= lo_)) ++count[size_t(bins_)];  // below (and NaN)
      else if (x >= hi_) ++count[size_t(bins_ + 1)];
      else ++count[size_t(std::min(bins_ - 1, int((x - lo_) / (hi_ - lo_) * bins_)))];
    }
    verdict v;  // a recorder: no score
    for (int b = 0; b < bins_; ++b) v.series.push_back({"count", series_axis::bin, b, -1, count[size_t(b)]});
    v.metrics.emplace_back("below", count[size_t(bins_)]);
    v.metrics.emplace_back("above", count[size_t(bins_ + 1)]);
    return v;
  }

 private:
  double lo_, hi_;
  int bins_;
};

class gradient_nan_inf final : public gradient_detector {
 public:
  verdict verify(const gradient_data& d) override {
    const int64_t bad = count_nonfinite(d);
    return {bad > 0, double(bad)};
  }
};

// A level in (0, 1].
double level(const detector_params& p, const char* test) {
  const double a = p.number("alpha");
  if (!(a > 0 && a <= 1)) throw value_error(fmt::format("{}: expected 0 < alpha <= 1; got {}", test, a));
  return a;
}

}  // namespace

// The tests as one list, built on first use (not at static initialization, so
// another family's registration may call it from its own file at any time).
const std::vector<detector_info>& sample_tests() {
  static const std::vector<detector_info> tests = [] {
    std::vector<detector_info> out;
    auto T = [&](detector_info i) { out.push_back(std::move(i)); };
    const param_spec k_tau{"tau", param_spec::type::number, 3.0, "W1 threshold (the paper: 3)", {}};
    const param_spec k_alpha{"alpha", param_spec::type::number, 1.0,
        "folding p-value level; 1 = Phi < 1 alone decides (the paper's rule)", {}};

    T({view_kind::sample, "folding_w1",
          "000 Algorithm 1: folding test, then W1 between the sides of its pivot > tau (score = W1 / tau)",
          {k_tau, k_alpha},
          [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
            return std::make_unique<folding_w1>(p.number("tau"), p.number("alpha"), true);
          }});
    T({view_kind::sample, "folding", "000 ablation: the folding test alone (score = 1 / Phi)", {k_alpha},
          [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
            return std::make_unique<folding_w1>(3.0, p.number("alpha"), false);
          }});
    T({view_kind::sample, "w1", "000 ablation: W1 between the sides of the median > tau (score = W1 / tau)",
          {k_tau},
          [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
            return make_sample_detector([tau = p.number("tau")](auto v) { return median_w1(v, tau); });
          }});
    T({view_kind::sample, "robust_z",
          "baseline: robust z-score of the largest log-norm, (max - median) / (1.4826 MAD) > z",
          {{"z", param_spec::type::number, 5.0, "z-score threshold", {}}},
          [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
            return make_sample_detector([z = p.number("z")](auto v) { return robust_z(v, z); });
          }});
    T({view_kind::sample, "dip",
             "Appendix A: Hartigan's dip test (AS 217 + Maechler's fixes), p-value from the qDiptab "
             "table < alpha (score = sqrt(m) dip)",
             {{"alpha", param_spec::type::number, 0.05, "significance level", {}}},
             [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
               return make_sample_detector([a = level(p, "dip")](auto v) { return dip(v, a); });
             }});
    T({view_kind::sample, "silverman",
             "Appendix A: Silverman's critical-bandwidth test, smoothed bootstrap p-value < alpha "
             "(score = 1 - p)",
             {{"alpha", param_spec::type::number, 0.05, "significance level", {}},
              {"B", param_spec::type::integer, 100, "bootstrap samples (1..100000)", {}},
              {"seed", param_spec::type::integer, 0, "bootstrap stream (mixed with the sample's values)", {}}},
             [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
               const int64_t B = p.integer("B");
               if (B < 1 || B > 100000) throw value_error(fmt::format("silverman: expected 1 <= B <= 100000; got {}", B));
               return make_sample_detector([a = level(p, "silverman"), B, seed = uint64_t(p.integer("seed"))](auto v) {
                 return silverman(v, a, B, seed);
               });
             }});
    T({view_kind::sample, "uu_test",
             "Appendix A: the UU-test (KS-uniform segments at alpha; flags when no unimodal model fits)",
             {{"alpha", param_spec::type::number, 0.01, "KS level of every segment (the authors: 0.01)", {}}},
             [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
               return make_sample_detector([a = level(p, "uu_test")](auto v) { return uu(v, a); });
             }});
    T({view_kind::sample, "histogram",
             "records the values' histogram as metrics bin_NN over [lo, hi) (never flags; 000 Figure 2)",
             {{"lo", param_spec::type::number, -10.0, "lower edge", {}},
              {"hi", param_spec::type::number, 100.0, "upper edge", {}},
              {"bins", param_spec::type::integer, 44, "number of bins (1..100)", {}}},
             [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
               const int64_t bins = p.integer("bins");
               if (bins < 1 || bins > 100 || !(p.number("hi") > p.number("lo")))
                 throw value_error("histogram: expected 1 <= bins <= 100 and lo < hi");
               return std::make_unique<histogram>(p.number("lo"), p.number("hi"), int(bins));
             },
             true});
    T({view_kind::sample, "nan_inf", "baseline: any Inf/NaN gradient element (a non-finite log-norm)", {},
          [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
            return std::make_unique<gradient_nan_inf>();
          }});
    return out;
  }();
  return tests;
}

namespace {

// Registered once for sample views: every workload handing one (gradient, mixture) runs them.
const bool gradient_tests_registered = [] {
  for (detector_info info : sample_tests()) register_detector(std::move(info));
  return true;
}();

}  // namespace
}  // namespace sdc
