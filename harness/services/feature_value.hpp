// The computations behind `sdcbench stat feature_value`, `sdcbench stat
// npu_asd` and sdcbench.feature_value, .FeatureValue, .npu_asd: 003's checks
// (detectors/ascend/silent_check.hpp, strike_policy.hpp) on a user's own
// values. A value is a parameter's max g^2 at a step, 0 = no gradient (not
// checked: the state does not change), NaN and Inf allowed. The front ends
// give the values (values_input, stat_tests.hpp) and the --param K=V words,
// which parse_feature_value_options and parse_npu_asd_options read once.
#pragma once
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "harness/services/stat_tests.hpp"

namespace sdc {

// feature_value's settings: upper_thresh1, upper_thresh2, grad_sample_interval
// (every interval-th column from the first is watched; default the
// variant's, 10 or 3), cooldown, strikes_num, strikes_window (minutes, as the
// originals), seconds_per_step (the clock between rows, default 1).
struct feature_value_options {
  silent::asd_variant variant = silent::asd_variant::mindspore;
  silent::feature_value_params fv;
  silent::strike_params sp;
  int64_t interval = 10;
  double seconds_per_step = 1;
};
// variant: mindspore | torch_npu; params: the K=V pairs (input_error naming
// --variant or --param otherwise).
feature_value_options parse_feature_value_options(const std::string& variant, const std::map<std::string, std::string>& params);
// npu_asd's: thresh_l1, thresh_l2, beta1.
silent::silent_check_v3_params parse_npu_asd_options(const std::map<std::string, std::string>& params);

struct step_column {
  int64_t step = 0, column = 0;  // 0-based
};
struct watched_state {
  int64_t column = 0;
  double avg = 0, pre = 0;
  int64_t nz = 0;
};
struct feature_value_result {
  std::optional<std::string> file;  // the values' name (none: a FeatureValue's steps)
  feature_value_options options;
  int64_t steps = 0, parameters = 0;
  std::vector<int64_t> watched;
  std::vector<step_column> alarms, strikes, strike_outs;  // strikes: counted alarms; strike-outs: torch_npu's
  std::vector<watched_state> final;
};
// The record: "alarms_at", "strikes_at" ([step, column]; mindspore's strikes,
// torch_npu's counted events), "strike_outs_at" (null for mindspore, which
// has none without the CheckSum), params, and each watched column's final state.
nlohmann::json to_json(const feature_value_result& r);

// The feature value one step at a time: each watched column's state and the
// rank's strikes, and every alarm, counted strike and strike-out so far.
class feature_value_tracker {
 public:
  feature_value_tracker(int64_t columns, const feature_value_options& o);  // input_error unless columns >= 1
  void step(const double* row);  // one step's max g^2 per parameter, `columns` of them
  int64_t columns() const { return columns_; }
  const std::vector<step_column>& alarms() const { return alarms_; }
  feature_value_result result() const;  // without a file

 private:
  int64_t columns_, steps_ = 0;
  feature_value_options o_;
  std::vector<int64_t> cols_;
  std::vector<silent::feature_value_state> states_;
  std::optional<silent::rank_strikes> strikes_;
  std::vector<step_column> alarms_, counted_, outs_;
};

// Values 1-D (one parameter, a value per step) or 2-D (steps x parameters,
// in registration order; never flattened); more dimensions are an error.
feature_value_result run_feature_value(const values_input& in, const feature_value_options& o);

struct npu_asd_result {
  std::string file;
  int64_t steps = 0;
  silent::silent_check_v3_params params;
  std::vector<int64_t> alarms, warnings;  // level 1 and level 2, steps 0-based
};
// Values 1-D: one value (max g^2 of the watched gradient) per step.
npu_asd_result run_npu_asd(const values_input& in, const silent::silent_check_v3_params& p);
nlohmann::json to_json(const npu_asd_result& r);

}  // namespace sdc
