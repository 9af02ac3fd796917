// The training runner's part in fault lifetimes and recomputation: it arms
// the step's fault sites with the right injector (the driver's, recorded at
// the plan's first firing; from then on, for a permanent fault, the
// recording played back), keeps every replica's parameters as they were
// before the step when a detector recomputes, and is the step_recomputer
// those detectors call (protocol/views/training_view.hpp).
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "protocol/views/training_view.hpp"
#include "workloads/training/fault_lifetime.hpp"
#include "workloads/training/training_sites.hpp"

namespace sdc::train {

class recompute_service final : public step_recomputer {
 public:
  // keep_state: snapshot the replicas before each step (a detector recomputes).
  // spec: the plan's fault, which a permanent fault applies again.
  recompute_service(const fault_site& site, const model_config& m, double gemm_q, fault_lifetime life, const fault_spec& spec,
                    bool keep_state);
  bool keeps_state() const { return keep_; }
  // A new episode on trainer t; lifetime_u(step): the episode's uniform draw
  // for an intermittent fault's state at that step (its lifetime stream).
  void begin(dp_trainer* t, std::function<double(int64_t)> lifetime_u);
  // The injector the step's sites use: `driver` (recorded when the plan fires
  // on `plan_rank` for the first time), or the recording played back on the
  // steps a recurring fault is active. Valid until the next call.
  step_injector& injector_for(step_injector& driver, int plan_rank, int64_t episode_step, int64_t global_step);
  // Rank `rank` is about to compute `global_step` from `rep` (after any fault in its state).
  void step_begins(int rank, const replica& rep, int64_t global_step);
  recomputed_step recompute(int data_rank, int state_of, int device) override;
  std::vector<float> all_reduce(const std::vector<std::vector<float>>& local, int device) override;
  // Whether computing anything again on `device` now repeats the recorded
  // fault (a recurring one, on at this step): a GEMM it changed comes back as it
  // is (gemm_record::fault_recurs).
  bool repeats_on(int device) const { return active(device); }

 private:
  // A recorded recurring fault acts on `device` at the current step.
  bool active(int device) const;
  fault_lifetime life_;
  fault_spec spec_;
  bool stored_;  // the site is stored state: a recurring fault is a stuck cell
  bool keep_;
  site_injector replay_sites_;  // a recomputation's sites, on its device
  dp_trainer* trainer_ = nullptr;
  fault_recording rec_;
  std::optional<recording_injector> recording_;
  std::optional<replaying_injector> replaying_;
  std::vector<param_set> before_;  // per rank
  int64_t step_ = -1;               // global, the current step's
  int64_t episode_step_ = -1, first_step_ = -1;  // the current one, the recorded fault's first (episode steps)
  std::function<double(int64_t)> u_;
  std::vector<bool> on_;  // the recorded fault's state per episode step from first_step_
};

}  // namespace sdc::train
