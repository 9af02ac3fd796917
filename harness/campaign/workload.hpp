// A workload is what a campaign runs trials of: it names its axes, says which
// combinations make no sense (skipped with a reason), and makes a per-thread
// runner that executes one trial: generate data, run the kernel, inject the
// fault, run every detector on the same data and fault, label the fault's
// significance with the MPFR ground truth.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "detectors/detector.hpp"
#include "harness/ground_truth/exact_dot.hpp"
#include "harness/random/streams.hpp"

namespace sdc {

// One axis: its name, help text, default values, and the parser that turns a
// value as written (JSON string or number, or command-line text) into its
// canonical text, throwing value_error with the expected syntax.
struct axis_def {
  std::string name;
  std::string help;
  std::vector<std::string> defaults;
  // (value text, folder of the suite file for relative paths) -> canonical text
  std::function<std::string(const std::string&, const std::string&)> canonical;
};

// Why a combination of axis values is skipped, and which axis is to blame (a
// value of that axis that is skipped in every cell it appears in is an error).
struct skip_info {
  std::string axis;
  std::string reason;
};

// One point of the axes' Cartesian product.
struct cell {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> axes;  // workload axis order
  std::string key;    // "dtype=bf16;distribution=normal(1,1);..."
  uint64_t hash = 0;  // fnv1a64(key): the random streams' cell id
  std::string base_dir;  // folder of the suite file, for relative data paths
  const std::string& at(const std::string& name) const;
  nlohmann::json axes_json() const;
};

// A detector as a suite lists it: which one, its label in results, its
// validated parameters (tolerances still unresolved).
struct detector_choice {
  const detector_info* info = nullptr;
  std::string label;
  nlohmann::json params;
};

// The closed set of ways a trial ends, per detector.
enum class outcome { detected, missed, false_alarm, clean_pass, skipped };

struct trial_result {
  bool skipped = false;
  std::string skip_reason;
  significance band = significance::masked;  // faulty trials
  double err_rel = 0;                         // worst affected element: |faulty - exact| / |exact|
  double err_ulps = 0;                        //   ... in ulps of the output format at the exact value
  double err_over_noise = 0;                  //   ... over the clean output's own error (>= ulp/2 floor)
  std::vector<verdict> verdicts;              // one per detector, suite order
  double kernel_seconds = 0;                  // unprotected kernel (0 when the trial reused a pair)
  bool kernel_ran = false;                    // this trial computed its data pair's kernel
  std::vector<double> detector_seconds;       // per detector (encode + verify)
};

class cell_runner {
 public:
  virtual ~cell_runner() = default;
  virtual trial_result run_trial(trial_kind kind, uint64_t trial) = 0;
};

class workload {
 public:
  virtual ~workload() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual const std::vector<axis_def>& axes() const = 0;
  // nullopt when the cell can run; else why the combination makes no sense.
  virtual std::optional<skip_info> skip_reason(const cell& c) const = 0;
  virtual detector_context context(const cell& c) const = 0;
  virtual std::unique_ptr<cell_runner> make_runner(const cell& c, const std::vector<detector_choice>& detectors,
                                                   uint64_t seed) const = 0;
};

// An axis value that must be an integer >= `min` (counts, sizes); throws
// value_error "AXIS: expected an integer >= MIN; got 'V'".
int64_t parse_integer_at_least(const std::string& v, int64_t min, const std::string& axis);

// The detector context of a workload whose `dtype` axis is both the input and
// the output format (gemm, gradient).
detector_context dtype_axis_context(const cell& c);

bool register_workload(std::unique_ptr<workload> w);
const workload* find_workload(const std::string& name);
std::vector<const workload*> all_workloads();

}  // namespace sdc
