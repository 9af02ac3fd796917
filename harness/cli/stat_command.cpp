#include "harness/cli/stat_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "detectors/stats/dip.hpp"
#include "detectors/stats/silverman.hpp"
#include "detectors/stats/unimodality.hpp"
#include "detectors/stats/uu_test.hpp"
#include "harness/errors.hpp"
#include "harness/io/npy.hpp"
#include "harness/theory/critical_shift.hpp"

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

std::vector<std::string> stat_test_names() {
  return {"folding", "w1", "folding_w1", "robust_z", "dip", "silverman", "uu_test"};
}

namespace {

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json run_stat(const std::string& name, const std::string& path, const stat_options& opt) {
  const double tau = opt.tau;
  const auto names = stat_test_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw input_error("NAME", name, fmt::format("expected one of {}", fmt::join(names, ", ")));
  const std::vector<double> v = read_values(path);
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw input_error(path, fmt::format("value {}", i), "expected finite numbers (log-norms); got " + std::to_string(v[i]));
  if (v.size() < 3) throw input_error(path, "values", fmt::format("expected at least 3 values; got {}", v.size()));
  if (opt.alpha == 0 || opt.alpha > 1) throw input_error("--alpha", std::to_string(opt.alpha), "expected a level in (0, 1]");
  if (opt.B < 1) throw input_error("--B", std::to_string(opt.B), "expected at least 1 bootstrap sample");
  nlohmann::json out = {{"test", name}, {"file", path}, {"n", v.size()}};
  if (name == "folding" || name == "folding_w1") {
    const auto f = stats::folding_test(v);
    out["statistic"] = f.phi;
    out["statistic_name"] = "Phi (folding statistic)";
    out["p_value"] = f.p_value;
    out["pivot"] = f.pivot;
    out["unimodal"] = f.unimodal;
    if (name == "folding") {
      out["decision"] = f.unimodal ? "unimodal" : "multimodal";
    } else {
      const double w = f.unimodal ? 0.0 : stats::pivot_split_w1(v, f.pivot);
      out["w1"] = f.unimodal ? nlohmann::json(nullptr) : nlohmann::json(w);
      out["tau"] = tau;
      out["decision"] = !f.unimodal && w > tau ? "SDC" : "clean";
    }
  } else if (name == "w1") {
    const double piv = stats::median(v);
    const double w = stats::pivot_split_w1(v, piv);
    out["statistic"] = w;
    out["statistic_name"] = "W1 between the sides of the median";
    out["p_value"] = nullptr;
    out["pivot"] = piv;
    out["tau"] = tau;
    out["decision"] = w > tau ? "SDC" : "clean";
  } else if (name == "dip") {
    const auto d = stats::dip_test(v);
    const double alpha = opt.alpha < 0 ? 0.05 : opt.alpha;
    out["statistic"] = d.dip;
    out["statistic_name"] = "Hartigan's dip";
    out["p_value"] = d.p_value;
    out["pivot"] = nullptr;
    out["modal_interval"] = {d.mode_lo, d.mode_hi};
    out["alpha"] = alpha;
    out["decision"] = d.p_value < alpha ? "multimodal" : "unimodal";
  } else if (name == "silverman") {
    const auto s = stats::silverman_test(v, opt.B, opt.seed);
    const double alpha = opt.alpha < 0 ? 0.05 : opt.alpha;
    out["statistic"] = s.h_crit;
    out["statistic_name"] = "critical bandwidth for one mode (Gaussian kernel)";
    out["p_value"] = s.p_value;
    out["pivot"] = nullptr;
    out["B"] = s.B;
    out["seed"] = opt.seed;
    out["alpha"] = alpha;
    out["decision"] = s.p_value < alpha ? "multimodal" : "unimodal";
  } else if (name == "uu_test") {
    const double alpha = opt.alpha < 0 ? 0.01 : opt.alpha;
    const auto u = stats::uu_test(v, alpha);
    out["statistic"] = u.segments;
    out["statistic_name"] = "uniform segments of the fitted unimodal model (0 = no unimodal model)";
    out["p_value"] = nullptr;
    out["pivot"] = nullptr;
    out["ks_tests"] = u.ks_tests;
    out["distinct_values"] = u.n_distinct;
    out["alpha"] = alpha;
    out["decision"] = u.unimodal ? "unimodal" : "multimodal";
  } else {
    const double z = stats::robust_z_max(v);
    out["statistic"] = number_or_null(z);
    out["statistic_name"] = "robust z-score of the largest value, (max - median) / (1.4826 MAD)";
    out["p_value"] = nullptr;
    out["pivot"] = nullptr;
    out["tau"] = tau;
    out["decision"] = !(z <= tau) ? "SDC" : "clean";
  }
  return out;
}

nlohmann::json run_delta_crit(double sigma, double p, int exponent_bits) {
  if (!(sigma > 0)) throw input_error("--sigma", std::to_string(sigma), "expected sigma > 0");
  if (!(p > 0 && p < 1)) throw input_error("--p", std::to_string(p), "expected 0 < p < 1");
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

}  // namespace sdc
