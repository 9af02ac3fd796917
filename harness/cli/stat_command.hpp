// `sdcbench stat NAME FILE` and `sdcbench delta-crit` (000_60f7924e74842bcb.txt):
// one statistical test on a user's values, and Theorem 1's critical shift.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

// The values of FILE: a .npy array (any shape, flattened) or a text file of
// numbers separated by whitespace or commas ('#' starts a comment).
std::vector<double> read_values(const std::string& path);

// Runs test NAME (folding, w1, folding_w1, robust_z) on the values; JSON with
// the statistic, the p-value where the test has one, the pivot, the decision.
nlohmann::json run_stat(const std::string& name, const std::string& path, double tau);
std::vector<std::string> stat_test_names();

nlohmann::json run_delta_crit(double sigma, double p, int exponent_bits);

}  // namespace sdc
