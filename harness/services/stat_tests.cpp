#include "harness/services/stat_tests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "detectors/gradient/sample_detector.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// How each test's verdict reads: its main statistic, and the words for a flag.
struct stat_reading {
  stat_test test;
  const char* name;
  const char* statistic;  // verdict metric
  const char* statistic_name;
  const char* flagged, *unflagged;
};
constexpr stat_reading k_readings[] = {  // in name order
    {stat_test::dip, "dip", "dip", "Hartigan's dip", "multimodal", "unimodal"},
    {stat_test::folding, "folding", "phi", "Phi (folding statistic)", "multimodal", "unimodal"},
    {stat_test::folding_w1, "folding_w1", "phi", "Phi (folding statistic); W1 between the sides of the pivot in w1", "SDC", "clean"},
    {stat_test::robust_z, "robust_z", "z", "robust z-score of the largest value, (max - median) / (1.4826 MAD)", "SDC", "clean"},
    {stat_test::silverman, "silverman", "h_crit", "critical bandwidth for one mode (Gaussian kernel)", "multimodal", "unimodal"},
    {stat_test::uu_test, "uu_test", "segments", "uniform segments of the fitted unimodal model (0 = no unimodal model)", "multimodal", "unimodal"},
    {stat_test::w1, "w1", "w1", "W1 between the sides of the median", "SDC", "clean"},
};
const stat_reading& reading(stat_test t) { return k_readings[size_t(t)]; }

}  // namespace

std::vector<std::string> stat_test_names() {
  std::vector<std::string> out;
  for (const auto& r : k_readings) out.push_back(r.name);
  return out;
}

const char* stat_test_name(stat_test t) { return reading(t).name; }

stat_test parse_stat_test(const std::string& name) {
  for (const auto& r : k_readings)
    if (name == r.name && find_detector(view_kind::sample, name)) return r.test;
  throw input_error("NAME", name, fmt::format("expected one of {}", fmt::join(stat_test_names(), ", ")));
}

stat_result run_stat(stat_test test, const values_input& in, const stat_options& opt) {
  const std::string& path = in.name;
  const std::string name = stat_test_name(test);
  const detector_info* info = find_detector(view_kind::sample, name);
  if (!info) throw input_error("NAME", name, fmt::format("expected one of {}", fmt::join(stat_test_names(), ", ")));
  // The options given, as the detector's parameters.
  json given = json::object();
  std::map<std::string, std::string> option_of;
  auto takes = [&](const std::string& p) {
    return std::any_of(info->params.begin(), info->params.end(), [&](const param_spec& s) { return s.name == p; });
  };
  auto pass = [&](const char* option, const std::string& param, const json& value) {
    if (!takes(param))
      throw input_error(option, value.dump(), fmt::format("test {} takes no {} (it takes: {})", name, option,
                                                          info->params.empty() ? "no options" : [&] {
                                                            std::string l;
                                                            for (const auto& p : info->params) l += (l.empty() ? "" : ", ") + p.name;
                                                            return l;
                                                          }()));
    given[param] = value, option_of[param] = option;
  };
  if (opt.tau) {
    if (!std::isfinite(*opt.tau) || *opt.tau <= 0) throw input_error("--tau", fmt::format("{}", *opt.tau), "expected a finite threshold > 0");
    pass("--tau", test == stat_test::robust_z ? "z" : "tau", *opt.tau);
  }
  if (opt.alpha) {
    if (!(*opt.alpha > 0 && *opt.alpha <= 1)) throw input_error("--alpha", fmt::format("{}", *opt.alpha), "expected a level in (0, 1]");
    pass("--alpha", "alpha", *opt.alpha);
  }
  if (opt.B) pass("--B", "B", *opt.B);
  if (opt.seed) {
    if (*opt.seed < 0) throw input_error("--seed", std::to_string(*opt.seed), "expected a non-negative integer");
    pass("--seed", "seed", *opt.seed);
  }
  stat_result r;
  r.test = test, r.file = path, r.shape = in.shape;
  std::unique_ptr<detector> det;
  try {
    r.params = validate_params(*info, given);
    det = info->make(detector_params(r.params, &fp64()), {&fp64(), &fp64(), json::object()});
  } catch (const value_error& e) {
    std::string option = "NAME";
    for (const auto& [p, o] : option_of)
      if (std::string(e.what()).find(p) != std::string::npos) option = o;
    throw input_error(option, name, e.what());
  }
  const std::vector<double>& v = in.values;
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw input_error(path, fmt::format("value {}", i + 1), fmt::format("expected finite numbers (log-norms); got {}", v[i]));  // 1-based, as lines
  if (v.size() < 3) throw input_error(path, "values", fmt::format("expected at least 3 values; got {}", v.size()));
  r.n = v.size();
  if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); })) {
    r.constant = true, r.constant_value = v.front();  // no distribution to call unimodal or multimodal
    return r;
  }
  sample_step view;
  view.data = {v.data(), int64_t(v.size())};
  det->reset({});
  r.v = det->observe(view);
  return r;
}

json to_json(const stat_result& r) {
  json j = {{"test", stat_test_name(r.test)}, {"file", r.file}, {"n", r.n}, {"params", r.params}};
  if (r.shape.size() > 1)
    j["note"] = fmt::format("{} is an array of shape {}: its values were taken in row-major order", r.file, fmt::join(r.shape, "x"));
  if (r.constant) {
    j.update({{"statistic", nullptr}, {"p_value", nullptr}, {"score", nullptr}, {"decision", "constant sample"},
              {"note", fmt::format("every value equals {}: a constant sample has no modes to test", r.constant_value)}});
    return j;
  }
  const stat_reading& rd = reading(r.test);
  json m = json::object();
  for (const auto& [k, x] : r.v.metrics) m[k] = finite_or_null(x);
  j["statistic"] = m.contains(rd.statistic) ? m[rd.statistic] : json(nullptr);
  j["statistic_name"] = rd.statistic_name;
  j["p_value"] = m.contains("p_value") ? m["p_value"] : json(nullptr);
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it.key() != rd.statistic && it.key() != "p_value") j[it.key()] = *it;
  if (m.contains("mode_lo")) j["modal_interval"] = {m["mode_lo"], m["mode_hi"]};
  for (const auto& [k, val] : r.params.items()) j[k] = val;
  j["score"] = finite_or_null(r.v.score);
  j["decision"] = r.v.flagged ? rd.flagged : rd.unflagged;
  return j;
}

delta_crit_result run_delta_crit(double sigma, double p, int exponent_bits) {
  if (!(sigma > 0) || !std::isfinite(sigma)) throw input_error("--sigma", fmt::format("{}", sigma), "expected a finite sigma > 0");
  if (!(p > 0 && p < 1)) throw input_error("--p", fmt::format("{}", p), "expected 0 < p < 1");
  if (exponent_bits < 2 || exponent_bits > 15)
    throw input_error("--exponent-bits", std::to_string(exponent_bits), "expected 2..15 (8 for bf16/fp32, 5 for fp16, 11 for fp64)");
  delta_crit_result r{sigma, p, exponent_bits, delta_crit(sigma, p), 0};
  if (r.shift) r.position = exponent_position(r.shift->delta, exponent_bits);
  return r;
}

json to_json(const delta_crit_result& r) {
  json out = {{"sigma", r.sigma}, {"p", r.p}, {"exponent_bits", r.exponent_bits}};
  if (!r.shift) {
    out["delta_crit"] = nullptr;
    out["note"] = "no Delta in [2 sigma, 202 sigma] solves the Appendix B.2 system";
    return out;
  }
  out["delta_crit"] = r.shift->delta;
  out["y_star"] = r.shift->y_star;
  out["root"] = r.shift->root_sign > 0 ? "+" : "-";
  out["position"] = r.position;
  return out;
}

json finite_or_spelled(double x) { return std::isfinite(x) ? json(x) : json(fmt::format("{}", x)); }

}  // namespace sdc
