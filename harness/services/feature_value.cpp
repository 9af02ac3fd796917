#include "harness/services/feature_value.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "foundation/errors.hpp"

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

// steps x columns, row-major; 1-D values are one column.
struct value_table {
  int64_t rows = 0, cols = 1;
  const std::vector<double>* v = nullptr;
};

value_table read_table(const values_input& a, bool two_d_allowed) {
  const std::string& path = a.name;
  value_table t;
  if (a.shape.size() == 2 && !two_d_allowed) throw input_error(path, "shape", "expected 1 dimension (a value per step)");
  if (a.shape.size() != 1 && a.shape.size() != 2)
    throw input_error(path, "shape", fmt::format("expected 1 dimension (a value per step) or 2 (steps x parameters); got {}", a.shape.size()));
  t.rows = a.shape[0], t.cols = a.shape.size() == 2 ? a.shape[1] : 1, t.v = &a.values;
  if (t.rows < 1 || t.cols < 1) throw input_error(path, "values", "expected at least one step and one parameter");
  return t;
}

json step_column_pairs(const std::vector<step_column>& v) {
  json out = json::array();
  for (const auto& p : v) out.push_back({p.step, p.column});
  return out;
}

}  // namespace

feature_value_options parse_feature_value_options(const std::string& variant_text, const params_t& params) {
  only(params, {"upper_thresh1", "upper_thresh2", "grad_sample_interval", "cooldown", "strikes_num", "strikes_window", "seconds_per_step"});
  feature_value_options o;
  try {
    o.variant = silent::parse_asd_variant(variant_text);
  } catch (const value_error&) {
    throw input_error("--variant", variant_text, "expected mindspore or torch_npu");
  }
  o.fv.upper_thresh1 = param(params, "upper_thresh1", 1e6), o.fv.upper_thresh2 = param(params, "upper_thresh2", 100);
  o.sp.cooldown = param(params, "cooldown", 5) * 60, o.sp.strikes_window = param(params, "strikes_window", 480) * 60;
  o.sp.strikes_num = integer(params, "strikes_num", 3, 1);
  o.interval = integer(params, "grad_sample_interval", o.variant == silent::asd_variant::mindspore ? 10 : 3, 1);
  o.seconds_per_step = param(params, "seconds_per_step", 1);
  for (const std::string& why : {o.fv.invalid(), o.sp.invalid()})
    if (!why.empty()) throw input_error("--param", why.substr(0, why.find(':')), why);
  if (!(o.seconds_per_step > 0)) throw input_error("--param", "seconds_per_step", "expected a number > 0");
  return o;
}

silent::silent_check_v3_params parse_npu_asd_options(const params_t& params) {
  only(params, {"thresh_l1", "thresh_l2", "beta1"});
  silent::silent_check_v3_params p;
  p.thresh_l1 = param(params, "thresh_l1", 1e6), p.thresh_l2 = param(params, "thresh_l2", 1e4), p.beta1 = param(params, "beta1", 0.99);
  if (auto why = p.invalid(); !why.empty()) throw input_error("--param", why.substr(0, why.find(':')), why);
  return p;
}

feature_value_tracker::feature_value_tracker(int64_t columns, const feature_value_options& o) : columns_(columns), o_(o) {
  if (columns < 1) throw input_error("values", "columns", "expected at least one parameter");
  for (int64_t c = 0; c < columns; c += o_.interval) cols_.push_back(c);
  states_.assign(cols_.size(), silent::feature_value_state(o_.fv));
  strikes_.emplace(o_.variant, o_.sp);
}

void feature_value_tracker::step(const double* row) {
  const int64_t s = steps_++;
  for (size_t u = cols_.size(); u-- > 0;) {  // backward order, as in training (feature_value.cpp)
    const double v = row[cols_[u]];
    if (v == 0) continue;  // no gradient: not checked
    if (!states_[u].observe(v).alarm) continue;
    alarms_.push_back({s, cols_[u]});
    const auto r = strikes_->alarm(double(s) * o_.seconds_per_step, false);
    if (r.counted) counted_.push_back({s, cols_[u]});
    if (r.struck_out) outs_.push_back({s, cols_[u]});
  }
}

feature_value_result feature_value_tracker::result() const {
  feature_value_result r;
  r.options = o_, r.steps = steps_, r.parameters = columns_, r.watched = cols_;
  r.alarms = alarms_, r.strikes = counted_, r.strike_outs = outs_;
  for (size_t u = 0; u < cols_.size(); ++u) r.final.push_back({cols_[u], states_[u].avg(), states_[u].pre(), states_[u].nz()});
  return r;
}

json to_json(const feature_value_result& r) {
  json final = json::array();
  for (const auto& w : r.final)
    final.push_back({{"column", w.column}, {"avg", finite_or_spelled(w.avg)}, {"nz", w.nz}, {"pre", finite_or_spelled(w.pre)}});
  const feature_value_options& o = r.options;
  const bool ms = o.variant == silent::asd_variant::mindspore;
  json j = {{"test", "feature_value"}, {"variant", silent::asd_variant_name(o.variant)}, {"steps", r.steps}, {"parameters", r.parameters},
            {"watched", r.watched},
            {"params", {{"upper_thresh1", o.fv.upper_thresh1}, {"upper_thresh2", o.fv.upper_thresh2}, {"grad_sample_interval", o.interval},
                        {"cooldown_minutes", o.sp.cooldown / 60}, {"strikes_num", o.sp.strikes_num},
                        {"strikes_window_minutes", o.sp.strikes_window / 60}, {"seconds_per_step", o.seconds_per_step}}},
            {"alarms_at", step_column_pairs(r.alarms)}, {"strikes_at", step_column_pairs(r.strikes)}, {"strike_outs_at", ms ? json(nullptr) : step_column_pairs(r.strike_outs)},
            {"final", final}};
  if (r.file) j["file"] = *r.file;
  return j;
}

feature_value_result run_feature_value(const values_input& in, const feature_value_options& o) {
  const value_table t = read_table(in, true);
  feature_value_tracker tracker(t.cols, o);
  for (int64_t s = 0; s < t.rows; ++s) tracker.step(t.v->data() + s * t.cols);
  feature_value_result r = tracker.result();
  r.file = in.name;
  return r;
}

npu_asd_result run_npu_asd(const values_input& in, const silent::silent_check_v3_params& p) {
  const value_table t = read_table(in, false);
  npu_asd_result r{in.name, t.rows, p, {}, {}};
  silent::silent_check_v3_state s(p);
  for (int64_t i = 0; i < t.rows; ++i) {
    const int level = s.observe((*t.v)[size_t(i)]).level;
    if (level == 1) r.alarms.push_back(i);
    if (level == 2) r.warnings.push_back(i);
  }
  return r;
}

json to_json(const npu_asd_result& r) {
  return {{"test", "npu_asd"}, {"file", r.file}, {"steps", r.steps},
          {"params", {{"thresh_l1", r.params.thresh_l1}, {"thresh_l2", r.params.thresh_l2}, {"beta1", r.params.beta1}}},
          {"alarms_at", r.alarms}, {"warnings_at", r.warnings}};
}

}  // namespace sdc
