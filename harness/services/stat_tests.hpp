// `sdcbench stat NAME FILE` and `sdcbench delta-crit` (000_60f7924e74842bcb.txt):
// one statistical test on a user's values, and Theorem 1's critical shift.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sdc {

// The values of FILE: a .npy array (any shape, flattened) or a text file of
// numbers separated by whitespace or commas ('#' starts a comment).
std::vector<double> read_values(const std::string& path);

// Values a command checks, read from a file or handed over in memory (the
// Python module, python/): `name` names them in errors and in the output.
struct values_input {
  std::string name;
  std::vector<double> values;   // row-major
  std::vector<int64_t> shape;   // a .npy array's shape; {n} for a text file
};
// FILE as above, with its shape.
values_input read_values_input(const std::string& path);

// Options of `sdcbench stat`. Only the options given are passed on, as the
// detector's parameters (tau: w1/folding_w1 "tau", robust_z "z"; alpha; B and
// seed: silverman); the rest keep the registered detector's defaults, the same
// a suite gets. An option the test does not take is an error.
struct stat_options {
  std::optional<double> tau, alpha;
  std::optional<int64_t> B, seed;
};

// Runs the registered detector NAME (stat_test_names()) of the gradient
// workload on the values; JSON with its parameters, the statistic, the
// p-value where the test has one, its other numbers, and the decision.
nlohmann::json run_stat(const std::string& name, const std::string& path, const stat_options& opt);
nlohmann::json run_stat(const std::string& name, const values_input& in, const stat_options& opt);
std::vector<std::string> stat_test_names();

nlohmann::json run_delta_crit(double sigma, double p, int exponent_bits);

// A statistic for the stat commands' JSON: the number, or "nan", "inf" spelled
// out (JSON has no non-finite numbers).
nlohmann::json finite_or_spelled(double x);

}  // namespace sdc
