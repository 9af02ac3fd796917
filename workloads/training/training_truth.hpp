// The ground truth of a faulty training episode: its clean twin (the same
// data group from the same fork, no fault) and what the episode's fault did
// against it: the significance band, the outcome label over the horizon
// (outcome_labels.hpp) and the truth metrics the workload declares
// (training_workload.cpp, truth_metrics).
#pragma once
#include <cstdint>
#include <vector>

#include "protocol/workload.hpp"
#include "workloads/training/training_cell.hpp"
#include "workloads/training/training_fork.hpp"

namespace sdc::train {

// The clean twin of one data group: its per-step mean losses, its final
// parameters (replica 0's: the replicas of a clean run are bit-identical) and
// its validation loss. run() trains it once per data group.
struct clean_twin {
  uint64_t id = ~0ull;  // the data group it was trained for
  std::vector<double> losses;
  param_set params;
  double val = 0;
  // m: the episode's model (model_for_site); its validation loss is the fork's model's, as the episode's.
  void run(const fork_point& fork, const model_config& m, const dp_config& dp, int64_t steps, uint64_t data_id);
};

// The episode's truth: masked when bit-identical to the twin; large (harmful)
// on NaN/Inf or a parameter distance or loss change above the natural runs'
// 99th percentile over the same horizon; within_noise otherwise.
episode_truth episode_truth_of(const training_cell& g, const fork_point& fork, int64_t fork_index, const dp_config& dp,
                               const step_schedule& when, const std::vector<replica>& reps, const std::vector<double>& losses,
                               const clean_twin& twin);

}  // namespace sdc::train
