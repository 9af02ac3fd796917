// `sdcbench stat NAME FILE` and `sdcbench delta-crit` (000_60f7924e74842bcb.txt):
// one statistical test on a user's values, and Theorem 1's critical shift.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace sdc {

// The values of FILE: a .npy array (any shape, flattened) or a text file of
// numbers separated by whitespace or commas ('#' starts a comment).
std::vector<double> read_values(const std::string& path);

// Options of `sdcbench stat`; alpha < 0 means the test's own default (0.05 for
// dip and silverman, 0.01 for uu_test, 1 = Phi < 1 alone for folding).
struct stat_options {
  double tau = 3.0;     // w1, folding_w1: W1 > tau; robust_z: z > tau
  double alpha = -1;    // significance level
  int64_t B = 200;      // silverman: bootstrap samples
  uint64_t seed = 0;    // silverman: bootstrap stream
};

// Runs test NAME (stat_test_names()) on the values; JSON with the statistic,
// the p-value where the test has one, the pivot, the decision.
nlohmann::json run_stat(const std::string& name, const std::string& path, const stat_options& opt);
std::vector<std::string> stat_test_names();

nlohmann::json run_delta_crit(double sigma, double p, int exponent_bits);

}  // namespace sdc
