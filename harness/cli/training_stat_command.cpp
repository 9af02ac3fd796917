#include "harness/cli/training_stat_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include "detectors/consistency.hpp"
#include "detectors/silent_check.hpp"
#include "harness/cli/stat_command.hpp"
#include "harness/errors.hpp"
#include "harness/io/npy.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

json num(double x) { return std::isfinite(x) ? json(x) : json(fmt::format("{}", x)); }  // "nan", "inf" spelled out

double param(const std::map<std::string, std::string>& p, const std::string& k, double dflt) {
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

}  // namespace

json run_feature_value_stat(const std::string& path, const std::map<std::string, std::string>& params) {
  static const char* known[] = {"upper_thresh1", "upper_thresh2", "cooldown", "strikes_num", "strikes_window", "seconds_per_step"};
  for (const auto& [k, v] : params)
    if (std::find(std::begin(known), std::end(known), k) == std::end(known))
      throw input_error("--param", k, "expected one of upper_thresh1, upper_thresh2, cooldown, strikes_num, strikes_window, seconds_per_step");
  silent::feature_value_params fv;
  fv.upper_thresh1 = param(params, "upper_thresh1", 1e6), fv.upper_thresh2 = param(params, "upper_thresh2", 100);
  silent::strike_params sp;
  sp.cooldown = param(params, "cooldown", 5) * 60, sp.strikes_window = param(params, "strikes_window", 480) * 60;
  const double strikes = param(params, "strikes_num", 3);
  if (strikes != std::floor(strikes)) throw input_error("--param", "strikes_num", "expected an integer >= 1");
  sp.strikes_num = int64_t(strikes);
  const double dt = param(params, "seconds_per_step", 1);
  for (const std::string& why : {fv.invalid(), sp.invalid()})
    if (!why.empty()) throw input_error("--param", why.substr(0, why.find(':')), why);
  if (!(dt > 0)) throw input_error("--param", "seconds_per_step", "expected a number > 0");
  const std::vector<double> v = read_values(path);
  if (v.empty()) throw input_error(path, "values", "expected at least one feature value");
  silent::feature_value_state s(fv);
  silent::strike_counter strikes_of(sp);
  json steps = json::array(), outs = json::array();
  int64_t alarms = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto st = s.observe(v[i]);
    json j = {{"step", i}, {"value", num(v[i])}};
    if (st.ignored) {
      j["ignored"] = true;
      steps.push_back(j);
      continue;
    }
    j.update({{"avg", num(st.avg)}, {"nz", st.nz}, {"t1", num(st.t1)}, {"t2", num(st.t2)}, {"warming", st.warming},
              {"averaged", st.accepted}, {"alarm", st.alarm}});
    if (st.alarm) {
      ++alarms;
      const auto r = strikes_of.alarm(double(i) * dt);
      j["strike"] = r.counted, j["strike_out"] = r.struck_out;
      if (r.struck_out) outs.push_back(i);
    }
    steps.push_back(j);
  }
  return {{"test", "feature_value"}, {"file", path}, {"n", v.size()},
          {"params", {{"upper_thresh1", fv.upper_thresh1}, {"upper_thresh2", fv.upper_thresh2}, {"beta", fv.beta},
                      {"warmup", fv.warmup}, {"cooldown_minutes", sp.cooldown / 60}, {"strikes_num", sp.strikes_num},
                      {"strikes_window_minutes", sp.strikes_window / 60}, {"seconds_per_step", dt}}},
          {"alarms", alarms}, {"strike_outs", outs}, {"steps", steps}};
}

json run_consistency_stat(const std::string& losses_path, const std::string& grads_path) {
  const std::vector<double> losses = read_values(losses_path);
  if (!grads_path.ends_with(".npy")) throw input_error(grads_path, "file", "expected a 2-D .npy array (ranks x P)");
  const npy_array g = read_npy(grads_path);
  if (g.shape.size() != 2) throw input_error(grads_path, "shape", fmt::format("expected 2 dimensions (ranks x P); got {}", g.shape.size()));
  const int64_t R = g.shape[0], P = g.shape[1];
  if (R < 2 || P < 1) throw input_error(grads_path, "shape", fmt::format("expected at least 2 ranks and 1 element; got {} x {}", R, P));
  if (int64_t(losses.size()) != R)
    throw input_error(losses_path, "values", fmt::format("expected one loss per rank of {} ({}); got {}", grads_path, R, losses.size()));
  const std::vector<double> all = g.values();
  auto rows = std::vector<std::vector<float>>(size_t(R));
  std::vector<std::span<const float>> spans;
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t p = 0; p < P; ++p) rows[size_t(r)].push_back(float(all[size_t(r * P + p)]));  // gradients as fp32, as training holds them
    spans.emplace_back(rows[size_t(r)]);
  }
  const consistency c = consistency_metrics(losses, spans);
  std::vector<double> log_norms;
  for (double n : c.norms) log_norms.push_back(n > 0 && std::isfinite(n) ? std::log(n) : NAN);
  const auto z_norm = robust_z_over_ranks(log_norms), z_cos = robust_z_over_ranks(c.cos_to_rest);
  json ranks = json::array();
  for (int64_t r = 0; r < R; ++r)
    ranks.push_back({{"rank", r}, {"loss", num(losses[size_t(r)])}, {"grad_norm", num(c.norms[size_t(r)])},
                     {"cos_to_rest", num(c.cos_to_rest[size_t(r)])}, {"z_log_norm", num(z_norm[size_t(r)])},
                     {"z_cos_to_rest", num(z_cos[size_t(r)])}});
  return {{"test", "consistency"}, {"losses", losses_path}, {"grads", grads_path}, {"ranks_n", R}, {"elements", P},
          {"loss_std", num(c.loss_std)}, {"loss_range", num(c.loss_range)}, {"grad_norm_mean", num(c.norm_mean)},
          {"grad_norm_std", num(c.norm_std)}, {"grad_norm_range", num(c.norm_range)}, {"cos_mean", num(c.cos_mean)},
          {"ranks", ranks}};
}

}  // namespace sdc
