// The point every episode of a training cell forks from, and the clean
// runs whose divergences define harm (training_episode.cpp's ground truth),
// each made once per process and shared by every thread's runner.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "protocol/views/training_view.hpp"
#include "workloads/training/outcome_labels.hpp"
#include "workloads/training/trainer/training_run.hpp"

namespace sdc::train {

// The configuration, its data and the checkpoint episodes fork from: made once
// per process and (configuration, warm-up), shared by every thread's runner.
struct fork_point {
  train_config config;
  train_data data;
  replica start;
  training_layout layout;
  std::vector<std::vector<training_step>> history;  // the warm-up steps, per rank
};

// Fork k of (configuration, warm-up), made on first use (fork_for in the .cpp says how).
std::shared_ptr<const fork_point> fork_for(const std::string& config_path, int64_t warmup, int64_t fork);

// Natural variation (the harm reference): R clean runs from the fork under the
// cell's seed policy that differ only in data order and the rank seeds (so,
// with dropout, in dropout masks), over the horizon H; for each of their
// R(R-1)/2 pairs the same divergences a faulty episode reports against its
// twin. Cached per (fork, policy, H, R, suite seed); the runs' data groups are
// their own (epochs from 2^40), so the reference does not depend on threads.
struct natural_reference {
  double param_p99 = 0, loss_p99 = 0;
  int64_t pairs = 0;
  loss_bands bands;  // per step and of the validation loss at H (outcome_labels.hpp)
};

std::shared_ptr<const natural_reference> natural_for(const fork_point& f, const std::string& fork_key, const dp_config& dp,
                                                     int64_t horizon, int64_t runs);

// The 2-norm of a flat fp32 gradient, summed in fp64 in element order (no
// ATen reduction: the same bits on every CPU).
double norm_of(const torch::Tensor& flat);
// Every tensor of a and b has the same bytes (so -0 differs from +0, and a NaN
// equals a NaN with its payload): what a deterministic computation reads.
bool same_bits(const param_set& a, const param_set& b);
// The largest validation loss of the replicas (NaN if any is). A replica with
// the bits of the twin (its loss twin_val) or of one already evaluated has
// that loss, the forward pass being deterministic: each distinct set of
// parameters is evaluated once, not every rank's (most of an episode's truth).
double worst_eval_loss(const fork_point& f, const std::vector<replica>& reps, const param_set& twin, double twin_val);
// Relative L2 distance ||a - b|| / ||b|| over all parameters (NaN if either is not finite).
double distance(const param_set& a, const param_set& b);
// max that keeps a NaN (std::max drops it when it comes second).
double nan_max(double a, double b);

// `steps` steps of t; each step's loss, the mean over the ranks.
std::vector<double> mean_losses(dp_trainer& t, int64_t steps);

}  // namespace sdc::train
