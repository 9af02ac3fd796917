// The ground truth of a training episode (training_truth.hpp).
#include "workloads/training/training_truth.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "workloads/training/outcome_labels.hpp"

namespace sdc::train {

void clean_twin::run(const fork_point& fork, const model_config& m, const dp_config& dp, int64_t steps, uint64_t data_id) {
  if (id == data_id) return;
  dp_trainer t(m, fork.config.optim, dp, &fork.data.train);
  t.start_from(fork.start);
  losses = mean_losses(t, steps);
  params = t.replicas()[0].params.clone();
  val = eval_loss(fork.config.model, params, fork.data.eval);
  id = data_id;
}

episode_truth episode_truth_of(const training_cell& g, const fork_point& fork, int64_t fork_index, const dp_config& dp,
                               const step_schedule& when, const std::vector<replica>& reps, const std::vector<double>& losses,
                               const clean_twin& twin) {
  episode_truth t;
  double from_twin = 0, across = 0;
  bool identical = true, finite = true;
  for (const auto& r : reps) {
    from_twin = nan_max(from_twin, distance(r.params, twin.params));
    across = nan_max(across, distance(r.params, reps[0].params));
    for (size_t i = 0; i < r.params.tensors.size(); ++i) {
      identical &= torch::equal(r.params.tensors[i], twin.params.tensors[i]);
      finite &= bool(torch::isfinite(r.params.tensors[i]).all().item<bool>());
    }
  }
  for (double l : losses) finite &= std::isfinite(l);
  const double last = losses.back(), twin_last = twin.losses.back();
  const double loss_rel = std::fabs(last - twin_last) / std::fabs(twin_last);
  identical &= losses == twin.losses;
  // The horizon: from the plan's first step to the episode's end.
  int64_t first = 0;
  while (first + 1 < g.steps && !when.fires(first)) ++first;
  const int64_t horizon = g.steps - first;
  const auto natural = natural_for(fork, g.config_path + "#" + std::to_string(g.warmup) + "#" + std::to_string(fork_index),
                                   dp, horizon, g.natural_runs);
  // The outcome label: the trajectories from the first firing on against the
  // natural runs' bands (outcome_labels.hpp); the validation loss is the
  // worst replica's (a replica that silently diverged is a degraded model).
  const double val = worst_eval_loss(fork, reps, twin.params, twin.val);
  const std::vector<double> mine(losses.begin() + first, losses.end()), twin_from(twin.losses.begin() + first, twin.losses.end());
  const labelled lab = label_of(mine, twin_from, val, twin.val, finite, natural->bands);
  t.label = lab.label;
  const std::string by_label = std::string("loss_excess/") + trajectory_label_name(lab.label);
  for (size_t k = 0; k < lab.excess.size(); ++k) {
    t.series.push_back({"loss_excess", series_axis::step, int32_t(k), -1, lab.excess[k]});
    t.series.push_back({by_label, series_axis::step, int32_t(k), -1, lab.excess[k]});
    t.series.push_back({"loss_band", series_axis::step, int32_t(k), -1, natural->bands.raw[k]});
    t.series.push_back({"loss_band_smoothed", series_axis::step, int32_t(k), -1, natural->bands.smooth[k]});
  }
  t.metrics = {{"loss_delta_rel", finite ? loss_rel : std::numeric_limits<double>::infinity()},
               {"param_distance_twin", from_twin},
               {"replica_divergence", across},
               {"nonfinite", finite ? 0.0 : 1.0},
               {"natural_param_p99", natural->param_p99},
               {"natural_loss_p99", natural->loss_p99},
               {"horizon_steps", double(horizon)},
               {"val_loss_delta", val - twin.val},
               {"spike_peak_bands", lab.spike_peak},
               {"end_excess_bands", lab.end_excess},
               {"val_excess_bands", lab.val_excess}};
  // masked: bit-identical to the twin; large (harmful): NaN/Inf, or the
  // parameters' distance from the twin or the loss change above the 99th
  // percentile of the same divergence between clean runs that differ only in
  // data order and rank seeds (natural_for) over the same horizon;
  // within_noise: changed, but no more than clean runs differ by themselves.
  const bool harmful = !finite || !(from_twin <= natural->param_p99) || !(loss_rel <= natural->loss_p99);
  t.band = identical ? significance::masked : harmful ? significance::large : significance::within_noise;
  return t;
}

}  // namespace sdc::train
