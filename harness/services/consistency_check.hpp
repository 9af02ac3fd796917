// `sdcbench stat consistency`: 002's metrics on a user's own training signals
// (003's checks: silent_stat_command.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "harness/services/stat_tests.hpp"

namespace sdc {

// L: one loss per rank (.npy or text); G: a 2-D .npy, ranks x P, each rank's
// flattened gradient before the all-reduce. 002's metrics, each rank's norm,
// cosine to the others and robust z-scores over the ranks.
nlohmann::json run_consistency_stat(const std::string& losses, const std::string& grads);
// The same on values in memory (stat_command.hpp: values_input); grads 2-D.
nlohmann::json run_consistency_stat(const values_input& losses, const values_input& grads);

}  // namespace sdc
