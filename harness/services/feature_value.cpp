#include "harness/services/feature_value.hpp"

#include <fmt/format.h>

#include <cmath>

#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "harness/services/stat_tests.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using params_t = std::map<std::string, std::string>;

void only(const params_t& p, std::initializer_list<const char*> known) {
  std::string list;
  for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  for (const auto& kv : p) {
    const std::string& k = kv.first;
    if (std::find_if(known.begin(), known.end(), [&](const char* x) { return k == x; }) == known.end())
      throw input_error("--param", k, "expected one of " + list);
  }
}

double param(const params_t& p, const std::string& k, double dflt) {
  auto it = p.find(k);
  if (it == p.end()) return dflt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != it->second.size() || !std::isfinite(v)) throw input_error("--param", k + "=" + it->second, "expected a finite number");
  return v;
}

int64_t integer(const params_t& p, const std::string& k, int64_t dflt, int64_t least) {
  const double v = param(p, k, double(dflt));
  if (v != std::floor(v) || v < double(least)) throw input_error("--param", k, fmt::format("expected an integer >= {}", least));
  return int64_t(v);
}

// steps x columns, row-major; a 1-D file is one column.
struct table {
  int64_t rows = 0, cols = 1;
  std::vector<double> v;
};

table read_table(const values_input& a, bool two_d_allowed) {
  const std::string& path = a.name;
  table t;
  if (a.shape.size() == 2 && !two_d_allowed) throw input_error(path, "shape", "expected 1 dimension (a value per step)");
  if (a.shape.size() != 1 && a.shape.size() != 2)
    throw input_error(path, "shape", fmt::format("expected 1 dimension (a value per step) or 2 (steps x parameters); got {}", a.shape.size()));
  t.rows = a.shape[0], t.cols = a.shape.size() == 2 ? a.shape[1] : 1, t.v = a.values;
  if (t.rows < 1 || t.cols < 1) throw input_error(path, "values", "expected at least one step and one parameter");
  return t;
}

}  // namespace

json run_feature_value_stat(const std::string& path, const std::string& variant_text, const params_t& params) {
  return run_feature_value_stat(read_values_input(path), variant_text, params);
}

json run_npu_asd_stat(const std::string& path, const params_t& params) { return run_npu_asd_stat(read_values_input(path), params); }

feature_value_tracker::feature_value_tracker(int64_t columns, const std::string& variant_text, const params_t& params)
    : columns_(columns) {
  only(params, {"upper_thresh1", "upper_thresh2", "grad_sample_interval", "cooldown", "strikes_num", "strikes_window", "seconds_per_step"});
  try {
    variant_ = silent::parse_asd_variant(variant_text);
  } catch (const value_error&) {
    throw input_error("--variant", variant_text, "expected mindspore or torch_npu");
  }
  fv_.upper_thresh1 = param(params, "upper_thresh1", 1e6), fv_.upper_thresh2 = param(params, "upper_thresh2", 100);
  sp_.cooldown = param(params, "cooldown", 5) * 60, sp_.strikes_window = param(params, "strikes_window", 480) * 60;
  sp_.strikes_num = integer(params, "strikes_num", 3, 1);
  interval_ = integer(params, "grad_sample_interval", variant_ == silent::asd_variant::mindspore ? 10 : 3, 1);
  dt_ = param(params, "seconds_per_step", 1);
  for (const std::string& why : {fv_.invalid(), sp_.invalid()})
    if (!why.empty()) throw input_error("--param", why.substr(0, why.find(':')), why);
  if (!(dt_ > 0)) throw input_error("--param", "seconds_per_step", "expected a number > 0");
  if (columns < 1) throw input_error("values", "columns", "expected at least one parameter");
  for (int64_t c = 0; c < columns; c += interval_) cols_.push_back(c);
  states_.assign(cols_.size(), silent::feature_value_state(fv_));
  strikes_.emplace(variant_, sp_);
}

void feature_value_tracker::step(const double* row) {
  const int64_t s = steps_++;
  for (size_t u = cols_.size(); u-- > 0;) {  // backward order, as in training (feature_value.cpp)
    const double v = row[cols_[u]];
    if (v == 0) continue;  // no gradient: not checked
    if (!states_[u].observe(v).alarm) continue;
    alarms_.push_back({s, cols_[u]});
    const auto r = strikes_->alarm(double(s) * dt_, false);
    if (r.counted) counted_.push_back({s, cols_[u]});
    if (r.struck_out) outs_.push_back({s, cols_[u]});
  }
}

json feature_value_tracker::result() const {
  json final = json::array();
  for (size_t u = 0; u < cols_.size(); ++u)
    final.push_back({{"column", cols_[u]},
                     {"avg", finite_or_spelled(states_[u].avg())},
                     {"nz", states_[u].nz()},
                     {"pre", finite_or_spelled(states_[u].pre())}});
  const bool ms = variant_ == silent::asd_variant::mindspore;
  return {{"test", "feature_value"}, {"variant", silent::asd_variant_name(variant_)}, {"steps", steps_}, {"parameters", columns_},
          {"watched", cols_},
          {"params", {{"upper_thresh1", fv_.upper_thresh1}, {"upper_thresh2", fv_.upper_thresh2}, {"grad_sample_interval", interval_},
                      {"cooldown_minutes", sp_.cooldown / 60}, {"strikes_num", sp_.strikes_num},
                      {"strikes_window_minutes", sp_.strikes_window / 60}, {"seconds_per_step", dt_}}},
          {"alarms_at", alarms_}, {"strikes_at", counted_}, {"strike_outs_at", ms ? json(nullptr) : outs_}, {"final", final}};
}

json run_feature_value_stat(const values_input& in, const std::string& variant_text, const params_t& params) {
  const table t = read_table(in, true);
  feature_value_tracker tracker(t.cols, variant_text, params);
  for (int64_t s = 0; s < t.rows; ++s) tracker.step(t.v.data() + s * t.cols);
  json j = tracker.result();
  j["file"] = in.name;
  return j;
}

json run_npu_asd_stat(const values_input& in, const params_t& params) {
  const std::string& path = in.name;
  only(params, {"thresh_l1", "thresh_l2", "beta1"});
  silent::silent_check_v3_params p;
  p.thresh_l1 = param(params, "thresh_l1", 1e6), p.thresh_l2 = param(params, "thresh_l2", 1e4), p.beta1 = param(params, "beta1", 0.99);
  if (auto why = p.invalid(); !why.empty()) throw input_error("--param", why.substr(0, why.find(':')), why);
  const table t = read_table(in, false);
  silent::silent_check_v3_state s(p);
  json alarms = json::array(), warnings = json::array();
  for (int64_t i = 0; i < t.rows; ++i) {
    const int level = s.observe(t.v[size_t(i)]).level;
    if (level == 1) alarms.push_back(i);
    if (level == 2) warnings.push_back(i);
  }
  return {{"test", "npu_asd"}, {"file", path}, {"steps", t.rows},
          {"params", {{"thresh_l1", p.thresh_l1}, {"thresh_l2", p.thresh_l2}, {"beta1", p.beta1}}},
          {"alarms_at", alarms}, {"warnings_at", warnings}};
}

}  // namespace sdc
