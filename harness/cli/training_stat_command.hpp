// `sdcbench stat feature_value FILE` and `sdcbench stat consistency`: the
// training-level detectors of 003 and 002 on a user's own training signals.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

// FILE: one feature value per step (.npy or text; NaN and Inf allowed: they
// are alarms). `params` (from --param K=V): upper_thresh1, upper_thresh2,
// cooldown, strikes_num, strikes_window (minutes, as the originals) and
// seconds_per_step (the clock between values, default 1). Per-step JSON: avg,
// nz, thresholds, alarm, counted strike, strike-out.
nlohmann::json run_feature_value_stat(const std::string& path, const std::map<std::string, std::string>& params);

// L: one loss per rank (.npy or text); G: a 2-D .npy, ranks x P, each rank's
// flattened gradient before the all-reduce. 002's metrics, each rank's norm,
// cosine to the others and robust z-scores over the ranks.
nlohmann::json run_consistency_stat(const std::string& losses, const std::string& grads);

}  // namespace sdc
