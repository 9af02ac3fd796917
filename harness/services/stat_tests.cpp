#include "harness/services/stat_tests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "detectors/gradient/sample_detector.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/theory/critical_shift.hpp"

namespace sdc {

std::vector<double> read_values(const std::string& path) {
  if (path.ends_with(".npy")) return read_npy(path).values();
  std::ifstream in(path);
  if (!in) throw input_error(path, "file", "expected a readable .npy file or text file of numbers");
  std::vector<double> v;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    for (auto& ch : line)
      if (ch == ',' || ch == ';') ch = ' ';
    std::istringstream ss(line);
    std::string tok;
    while (ss >> tok) {
      size_t used = 0;
      double x = 0;
      try {
        x = std::stod(tok, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != tok.size())
        throw input_error(path, fmt::format("line {}", lineno), "expected numbers; got '" + tok + "'");
      v.push_back(x);
    }
  }
  return v;
}

values_input read_values_input(const std::string& path) {
  if (path.ends_with(".npy")) {
    npy_array a = read_npy(path);
    return {path, a.values(), std::vector<int64_t>(a.shape.begin(), a.shape.end())};
  }
  std::vector<double> v = read_values(path);
  const auto n = int64_t(v.size());
  return {path, std::move(v), {n}};
}


namespace {

using json = nlohmann::json;

// How each test's verdict reads: its main statistic, and the words for a flag.
struct stat_reading {
  const char* statistic;  // verdict metric
  const char* statistic_name;
  const char* flagged, *unflagged;
};
const std::map<std::string, stat_reading>& readings() {
  static const std::map<std::string, stat_reading> r = {
      {"folding", {"phi", "Phi (folding statistic)", "multimodal", "unimodal"}},
      {"folding_w1", {"phi", "Phi (folding statistic); W1 between the sides of the pivot in w1", "SDC", "clean"}},
      {"w1", {"w1", "W1 between the sides of the median", "SDC", "clean"}},
      {"robust_z", {"z", "robust z-score of the largest value, (max - median) / (1.4826 MAD)", "SDC", "clean"}},
      {"dip", {"dip", "Hartigan's dip", "multimodal", "unimodal"}},
      {"silverman", {"h_crit", "critical bandwidth for one mode (Gaussian kernel)", "multimodal", "unimodal"}},
      {"uu_test", {"segments", "uniform segments of the fitted unimodal model (0 = no unimodal model)", "multimodal", "unimodal"}},
  };
  return r;
}

}  // namespace

std::vector<std::string> stat_test_names() {
  std::vector<std::string> out;
  for (const auto& [name, r] : readings()) out.push_back(name);
  return out;
}

json run_stat(const std::string& name, const std::string& path, const stat_options& opt) {
  return run_stat(name, read_values_input(path), opt);
}

json run_stat(const std::string& name, const values_input& in, const stat_options& opt) {
  const std::string& path = in.name;
  const auto names = stat_test_names();
  const detector_info* info = readings().count(name) ? find_detector(view_kind::sample, name) : nullptr;
  if (!info) throw input_error("NAME", name, fmt::format("expected one of {}", fmt::join(names, ", ")));
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
    pass("--tau", name == "robust_z" ? "z" : "tau", *opt.tau);
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
  json params;
  std::unique_ptr<detector> det;
  try {
    params = validate_params(*info, given);
    det = info->make(detector_params(params, &fp64()), {&fp64(), &fp64(), json::object()});
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
  json j = {{"test", name}, {"file", path}, {"n", v.size()}, {"params", params}};
  if (in.shape.size() > 1)
    j["note"] = fmt::format("{} is an array of shape {}: its values were taken in row-major order", path, fmt::join(in.shape, "x"));
  if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); })) {
    // Every value is the same: no distribution to call unimodal or multimodal.
    j.update({{"statistic", nullptr}, {"p_value", nullptr}, {"score", nullptr}, {"decision", "constant sample"},
              {"note", fmt::format("every value equals {}: a constant sample has no modes to test", v.front())}});
    return j;
  }
  sample_step view;
  view.data = {v.data(), int64_t(v.size())};
  det->reset({});
  const verdict out = det->observe(view);
  const stat_reading& rd = readings().at(name);
  json m = json::object();
  for (const auto& [k, x] : out.metrics) m[k] = finite_or_null(x);
  j["statistic"] = m.contains(rd.statistic) ? m[rd.statistic] : json(nullptr);
  j["statistic_name"] = rd.statistic_name;
  j["p_value"] = m.contains("p_value") ? m["p_value"] : json(nullptr);
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it.key() != rd.statistic && it.key() != "p_value") j[it.key()] = *it;
  if (m.contains("mode_lo")) j["modal_interval"] = {m["mode_lo"], m["mode_hi"]};
  for (const auto& [k, val] : params.items()) j[k] = val;
  j["score"] = finite_or_null(out.score);
  j["decision"] = out.flagged ? rd.flagged : rd.unflagged;
  return j;
}

nlohmann::json run_delta_crit(double sigma, double p, int exponent_bits) {
  if (!(sigma > 0) || !std::isfinite(sigma)) throw input_error("--sigma", fmt::format("{}", sigma), "expected a finite sigma > 0");
  if (!(p > 0 && p < 1)) throw input_error("--p", fmt::format("{}", p), "expected 0 < p < 1");
  if (exponent_bits < 2 || exponent_bits > 15)
    throw input_error("--exponent-bits", std::to_string(exponent_bits), "expected 2..15 (8 for bf16/fp32, 5 for fp16, 11 for fp64)");
  const auto c = delta_crit(sigma, p);
  nlohmann::json out = {{"sigma", sigma}, {"p", p}, {"exponent_bits", exponent_bits}};
  if (!c) {
    out["delta_crit"] = nullptr;
    out["note"] = "no Delta in [2 sigma, 202 sigma] solves the Appendix B.2 system";
    return out;
  }
  out["delta_crit"] = c->delta;
  out["y_star"] = c->y_star;
  out["root"] = c->root_sign > 0 ? "+" : "-";
  out["position"] = exponent_position(c->delta, exponent_bits);
  return out;
}

nlohmann::json finite_or_spelled(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(fmt::format("{}", x));
}

}  // namespace sdc
