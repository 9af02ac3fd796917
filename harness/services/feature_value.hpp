// `sdcbench stat feature_value FILE` and `sdcbench stat npu_asd FILE`: 003's
// checks (detectors/ascend/silent_check.hpp, strike_policy.hpp) on a user's own values.
#pragma once
#include <map>
#include <optional>
#include <vector>
#include <nlohmann/json.hpp>
#include <string>

#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "harness/services/stat_tests.hpp"

namespace sdc {

// FILE: .npy, 1-D (one parameter, a value per step) or 2-D (steps x
// parameters, in registration order), or a text file of numbers (1-D); a
// value is the parameter's max g^2 at that step, 0 = no gradient (not
// checked: the state does not change), NaN and Inf allowed. A 2-D file is
// never flattened; more dimensions are an error. The watched columns are
// every grad_sample_interval-th from the first (default: the variant's, 10 or
// 3; a 1-D file is watched). `params` (--param K=V): upper_thresh1,
// upper_thresh2, grad_sample_interval, cooldown, strikes_num, strikes_window
// (minutes, as the originals), seconds_per_step (the clock between rows,
// default 1). JSON: "alarms_at" and "strikes_at" ([step, column], 0-based;
// strikes = counted alarms: mindspore's strikes, torch_npu's counted events),
// "strike_outs_at" (torch_npu; null for mindspore, which has none without
// the CheckSum), and each watched column's final state.
nlohmann::json run_feature_value_stat(const std::string& path, const std::string& variant,
                                      const std::map<std::string, std::string>& params);

// FILE: 1-D, one value (max g^2 of the watched gradient) per step. `params`:
// thresh_l1, thresh_l2, beta1. JSON: "alarms_at" (level 1) and "warnings_at"
// (level 2), steps 0-based.
nlohmann::json run_npu_asd_stat(const std::string& path, const std::map<std::string, std::string>& params);
// The same on values in memory (stat_command.hpp: values_input).
nlohmann::json run_feature_value_stat(const values_input& in, const std::string& variant,
                                      const std::map<std::string, std::string>& params);
nlohmann::json run_npu_asd_stat(const values_input& in, const std::map<std::string, std::string>& params);

// The feature value of run_feature_value_stat one step at a time (the Python
// module's FeatureValue keeps one across calls): each watched column's state
// and the rank's strikes, and every alarm, counted strike and strike-out so
// far. The constructor checks the parameters as run_feature_value_stat does.
class feature_value_tracker {
 public:
  feature_value_tracker(int64_t columns, const std::string& variant, const std::map<std::string, std::string>& params);
  void step(const double* row);  // one step's max g^2 per parameter, `columns` of them
  int64_t columns() const { return columns_; }
  const nlohmann::json& alarms() const { return alarms_; }  // [step, column] pairs so far
  nlohmann::json result() const;  // run_feature_value_stat's fields but "file"

 private:
  int64_t columns_, steps_ = 0, interval_ = 1;
  double dt_ = 1;
  silent::asd_variant variant_{};
  silent::feature_value_params fv_;
  silent::strike_params sp_;
  std::vector<int64_t> cols_;
  std::vector<silent::feature_value_state> states_;
  std::optional<silent::rank_strikes> strikes_;
  nlohmann::json alarms_ = nlohmann::json::array(), counted_ = nlohmann::json::array(), outs_ = nlohmann::json::array();
};

}  // namespace sdc
