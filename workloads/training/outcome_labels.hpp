// Outcome labels of a faulty training episode (protocol/workload.hpp
// trajectory_label): what its loss and validation-loss trajectories did
// against its clean twin, measured in units of the noise band of clean runs
// that differ only in data order and rank seeds (training_fork.hpp
// natural_for). Pure functions of the trajectories, no libtorch: the rule is
// pinned by tests/test_outcome_labels.cpp on synthetic trajectories.
// METHODOLOGY.md "Outcome labels" states the thresholds and their reasons.
#pragma once
#include <cstdint>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc::train {

// Trailing-window mean of the mean-of-ranks training loss (window W steps,
// shorter at the start): batch-to-batch noise averages down, so a lasting
// shift shows against a narrow band.
inline constexpr int64_t k_smooth_window = 10;
// Each step's band is the 99th percentile (nearest rank) of clean pairs'
// differences at that step and its neighbours within this many steps, so a
// band from few runs is not one pair's luck.
inline constexpr int64_t k_band_neighbours = 2;

// The q-quantile (nearest rank) of v (not empty).
double nearest_rank(std::vector<double> v, double q);

std::vector<double> smoothed(const std::vector<double>& loss, int64_t window = k_smooth_window);

// The noise band, per step since the runs' common start: raw (single-step
// training loss), smoothed, and the validation loss at the horizon's end.
struct loss_bands {
  std::vector<double> raw, smooth;
  double val = 0;
  int64_t pairs = 0;
};
// `runs`: R >= 2 clean runs' per-step training losses (same length H);
// `val`: their validation losses at step H.
loss_bands bands_of(const std::vector<std::vector<double>>& runs, const std::vector<double>& val);

// One faulty episode against its twin, both from the plan's first firing on
// (index k = steps since it): training losses, validation losses at the end,
// and whether every loss and parameter stayed finite.
struct labelled {
  trajectory_label label = trajectory_label::masked;
  double spike_peak = 0;   // max_k min(excess, its rise since k-1) / raw band: > 1 is a spike
  double end_excess = 0;   // smoothed (faulty - twin) at the end / smoothed band: > 1 degrades training
  double val_excess = 0;   // (faulty - twin) validation loss / its band: > 1 degrades held-out loss
  std::vector<double> excess;  // faulty - twin training loss per step
};
labelled label_of(const std::vector<double>& faulty, const std::vector<double>& twin, double val_faulty, double val_twin,
                  bool finite, const loss_bands& b);

}  // namespace sdc::train
