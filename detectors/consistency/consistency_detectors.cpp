// 002_63547290c53d63ef.txt's consistency metrics (consistency.hpp) as
// detectors that blame a rank, and as a recorder of their per-step series.
//   grad_norm_outlier  flags a step when a rank's pre-all-reduce gradient norm
//                      is a robust outlier among the ranks: |z| > z_max on
//                      log ||g_i|| (z = (x - median) / (1.4826 MAD) over the
//                      ranks); NaN/Inf norms are outliers. Blames the rank
//                      with the largest |z|. Score = max |z| / z_max.
//   cosine_outlier     flags a step when a rank's cosine to the sum of the
//                      others is a low outlier: z < -z_max; NaN (no
//                      direction: a zero or non-finite gradient) flags too.
//                      Blames the lowest. Score = max(-z) / z_max.
//   consistency_curve  recorder: per step sNN of the episode, loss_std,
//                      loss_range, grad_norm_mean, grad_norm_std,
//                      grad_norm_range, cos_mean; and over the episode's
//                      steps the median and 90th percentile of each (_p50, _p90).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "detectors/consistency/consistency.hpp"
#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::vector<const training_step*> steps_of(const std::vector<const step_view*>& views) {
  std::vector<const training_step*> s;
  for (const auto* v : views) s.push_back(&view_cast<training_step>(*v, view_kind::training));
  return s;
}

std::vector<std::span<const float>> grads_of(const std::vector<const training_step*>& s) {
  std::vector<std::span<const float>> g;
  for (const auto* v : s) g.emplace_back(v->grads);
  return g;
}

// The common frame of the two outlier tests: z-scores of one value per rank.
class rank_outlier : public episode_detector {
 public:
  explicit rank_outlier(double z_max) : z_max_(z_max) {}
  void reset(const episode_context&) override {}
  detector_needs needs() const override { return {}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    const std::vector<double> x = per_rank_values(steps_of(views));
    const std::vector<double> z = robust_z_over_ranks(x);
    verdict out;
    out.score = 0;
    for (size_t r = 0; r < z.size(); ++r) {
      const double s = std::isnan(x[r]) ? k_nan : deviation(z[r]) / z_max_;  // a rank with no value is an outlier
      if (std::isnan(out.score)) continue;
      if (std::isnan(s) || s > out.score) out.score = s, out.rank = int(r);
    }
    out.flagged = !(out.score <= 1);
    if (!out.flagged) out.rank = -1;
    return out;
  }

 protected:
  virtual std::vector<double> per_rank_values(const std::vector<const training_step*>& s) const = 0;
  virtual double deviation(double z) const = 0;
  double z_max_;
};

class grad_norm_outlier final : public rank_outlier {
 public:
  using rank_outlier::rank_outlier;

 private:
  std::vector<double> per_rank_values(const std::vector<const training_step*>& s) const override {
    std::vector<double> x;
    for (const auto* v : s) {
      const double sq = dot_lanes(v->grads, v->grads);
      x.push_back(std::isfinite(sq) && sq > 0 ? 0.5 * std::log(sq) : k_nan);
    }
    return x;
  }
  double deviation(double z) const override { return std::fabs(z); }
};

class cosine_outlier final : public rank_outlier {
 public:
  using rank_outlier::rank_outlier;

 private:
  std::vector<double> per_rank_values(const std::vector<const training_step*>& s) const override {
    std::vector<double> losses(s.size(), 0.0);
    return consistency_metrics(losses, grads_of(s)).cos_to_rest;
  }
  double deviation(double z) const override { return -z; }
};

double quantile(std::vector<double> x, double q) {  // linear interpolation (numpy's default), NaN left out
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return std::isnan(v); }), x.end());
  if (x.empty()) return k_nan;
  std::sort(x.begin(), x.end());
  const double pos = q * double(x.size() - 1);
  const size_t lo = size_t(pos);
  const double frac = pos - double(lo);
  return lo + 1 < x.size() ? x[lo] + frac * (x[lo + 1] - x[lo]) : x[lo];
}

class consistency_curve final : public episode_detector {
 public:
  void reset(const episode_context&) override { series_.assign(6, {}); }
  detector_needs needs() const override { return {}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    const auto s = steps_of(views);
    std::vector<double> losses;
    for (const auto* v : s) losses.push_back(v->loss);
    const consistency c = consistency_metrics(losses, grads_of(s));
    const double now[6] = {c.loss_std, c.loss_range, c.norm_mean, c.norm_std, c.norm_range, c.cos_mean};
    for (size_t i = 0; i < 6; ++i) series_[i].push_back(now[i]);
    verdict out;
    for (size_t i = 0; i < 6; ++i)
      for (size_t k = 0; k < series_[i].size(); ++k) out.series.push_back({k_names[i], series_axis::step, int32_t(k), -1, series_[i][k]});
    for (size_t i = 0; i < 6; ++i) {
      out.metrics.emplace_back(fmt::format("{}_p50", k_names[i]), quantile(series_[i], 0.5));
      out.metrics.emplace_back(fmt::format("{}_p90", k_names[i]), quantile(series_[i], 0.9));
    }
    return out;  // the driver keeps the last step's: the whole series
  }

 private:
  static constexpr const char* k_names[6] = {"loss_std", "loss_range", "grad_norm_mean", "grad_norm_std", "grad_norm_range", "cos_mean"};
  std::vector<std::vector<double>> series_;
};

double z_max(const detector_params& p, const char* name) {
  const double z = p.number("z");
  if (!(z > 0) || !std::isfinite(z)) throw value_error(fmt::format("{}: z: expected a finite number > 0; got {}", name, z));
  return z;
}

std::unique_ptr<detector> no_per_rank(const detector_params&, const detector_context&) {
  throw std::logic_error("this test sees every rank at once: use make_episode");
}

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "grad_norm_outlier",
                            "002: a rank whose pre-all-reduce gradient norm is a robust outlier among the ranks (|z| of the "
                            "log-norm > z); blames it",
                            {{"z", T::number, 5.0, "robust z-score threshold over the ranks", {}}},
                            no_per_rank, false, {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              return std::make_unique<grad_norm_outlier>(z_max(p, "grad_norm_outlier"));
                            }});
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "cosine_outlier",
                            "002: a rank whose gradient's cosine to the sum of the others' is a low robust outlier (z < -z), "
                            "from one extra all-reduce of unit vectors; blames it",
                            {{"z", T::number, 5.0, "robust z-score threshold over the ranks", {}}},
                            no_per_rank, false, {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              return std::make_unique<cosine_outlier>(z_max(p, "cosine_outlier"));
                            }});
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "consistency_curve",
                            "002: records each step's loss std and range, gradient-norm mean, std and range, and mean pairwise "
                            "cosine across ranks, with their median and 90th percentile over the episode (never flags)",
                            {}, no_per_rank, true, {},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<episode_detector> {
                              return std::make_unique<consistency_curve>();
                            }});

}  // namespace
}  // namespace sdc
