// The computations behind `sdcbench stat NAME` for 000's tests and `sdcbench
// delta-crit` (000_60f7924e74842bcb.txt), and sdcbench.stat: one statistical
// test of the gradient workload's registered detectors on a user's values,
// and Theorem 1's critical shift. The front ends read the values (a file, a
// numpy array) into values_input; the results are structs, and to_json their
// record, the JSON both front ends print.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "foundation/theory/critical_shift.hpp"
#include "protocol/detector.hpp"

namespace sdc {

// Values a service checks: `name` (a file, or "values") names them in errors
// and in the record; `shape` is a .npy or numpy array's ({n} for a list).
struct values_input {
  std::string name;
  std::vector<double> values;   // row-major
  std::vector<int64_t> shape;
};

// 000's tests, each a registered detector of sample views.
enum class stat_test { dip, folding, folding_w1, robust_z, silverman, uu_test, w1 };
// "folding" -> stat_test::folding; input_error naming NAME and the tests otherwise.
stat_test parse_stat_test(const std::string& name);
const char* stat_test_name(stat_test t);
std::vector<std::string> stat_test_names();  // in name order

// The options given, passed on as the detector's parameters (tau: w1 and
// folding_w1 "tau", robust_z "z"; alpha; B and seed: silverman); the rest keep
// the registered detector's defaults, the same a suite gets. An option the
// test does not take is an error naming it (--tau, --alpha, --B, --seed).
struct stat_options {
  std::optional<double> tau, alpha;
  std::optional<int64_t> B, seed;
};

struct stat_result {
  stat_test test{};
  std::string file;
  std::vector<int64_t> shape;  // the input's
  size_t n = 0;
  nlohmann::json params;       // the detector's validated parameters
  bool constant = false;       // every value equal: not tested (v is empty)
  double constant_value = 0;
  verdict v;
};
stat_result run_stat(stat_test test, const values_input& in, const stat_options& opt);
// The record: test, file, n, params (and each parameter again at the top),
// the test's statistic and its name, p_value, its other metrics, score and
// decision (the test's words for a flag).
nlohmann::json to_json(const stat_result& r);

struct delta_crit_result {
  double sigma = 0, p = 0;
  int exponent_bits = 0;
  std::optional<critical_shift> shift;  // none: no Delta in [2 sigma, 202 sigma] solves Appendix B.2's system
  double position = 0;                  // the shift's exponent bit position
};
delta_crit_result run_delta_crit(double sigma, double p, int exponent_bits);
nlohmann::json to_json(const delta_crit_result& r);

// A statistic in the services' records: the number, or "nan", "inf" spelled
// out (JSON has no non-finite numbers).
nlohmann::json finite_or_spelled(double x);

}  // namespace sdc
