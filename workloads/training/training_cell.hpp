// A training workload cell, typed once from the suite's axis values (config,
// warmup_steps, steps, faults_per_twin, site, the fault axes, lifetime,
// gemm_q, seed_policy, forks, natural_runs, optimizer) and the job
// configuration it names, read once when the suite loads.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "injectors/fault_axes.hpp"
#include "protocol/workload.hpp"
#include "workloads/training/fault_lifetime.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "workloads/training/training_sites.hpp"

namespace sdc::train {

// The shared fault axes a training cell has: `site` names the tensor, so the
// element within it is `element`.
inline constexpr fault_axis_names k_training_fault_axes{.element = "element", .count = "count", .when = true, .rank = true};

struct training_cell : typed_cell {
  std::string config_path;  // resolved against the suite's folder
  std::shared_ptr<const train_config> config;  // the job configuration it names, read once
  int64_t warmup = 20, steps = 8, per_twin = 4;
  fault_site site;    // the tensor (training_sites.hpp)
  fault_axes faults;  // fault, bit, element, count, when, rank (injectors/fault_axes.hpp)
  fault_lifetime lifetime;  // transient unless the cell says otherwise
  double q = 1e-3;
  std::optional<seed_policy> policy;  // 002's setting from the fork on; none: the configuration's
  int64_t forks = 1;                  // independent warm-ups; episode group g forks from g mod forks
  int64_t natural_runs = 16;          // clean runs whose pairwise divergences define harm
  bool distributed_optimizer = false; // `optimizer`: Megatron-LM's distributed optimizer (trainer.hpp)
};

// `optimizer`: "replicated" false, "distributed" true; value_error otherwise.
bool parse_optimizer(const std::string& v);

// `v` as written in a suite, relative to the suite's folder `dir`.
std::string resolve_config(const std::string& v, const std::string& dir);
training_cell parse_training_cell(const cell& c);
train_config load_config(const training_cell& g);

}  // namespace sdc::train
