// The computation behind `sdcbench stat consistency` and sdcbench.consistency:
// 002's metrics on a user's own training signals (003's checks:
// feature_value.hpp). The front ends give the values (values_input).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "detectors/consistency/consistency.hpp"
#include "harness/services/stat_tests.hpp"

namespace sdc {

struct consistency_result {
  std::string losses_name, grads_name;
  int64_t ranks = 0, elements = 0;
  std::vector<double> losses;
  consistency metrics;                         // 002's, over the ranks
  std::vector<double> z_log_norm, z_cos_to_rest;  // each rank's robust z-scores
};
// losses: one per rank; grads: 2-D, ranks x P, each rank's flattened gradient
// before the all-reduce (taken as fp32, as training holds them).
consistency_result run_consistency(const values_input& losses, const values_input& grads);
// The record: 002's metrics, and each rank's loss, norm, cosine to the others and z-scores.
nlohmann::json to_json(const consistency_result& r);

}  // namespace sdc
