#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "protocol/detector.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::map<std::pair<std::string, std::string>, detector_info>& registry() {
  static std::map<std::pair<std::string, std::string>, detector_info> r;
  return r;
}

std::vector<std::function<void()>>& late_registrations() {
  static std::vector<std::function<void()>> r;
  return r;
}

// Registrations that read other detectors' entries run once, at the first
// look-up, when every file's static registration is done.
// (A late registration may look detectors up itself: the recursive call returns.)
void run_late_registrations() {
  static std::recursive_mutex mu;
  static bool started = false;
  std::lock_guard<std::recursive_mutex> lock(mu);
  if (started) return;
  started = true;
  for (auto& f : late_registrations()) f();
}

// "8u" -> 8 * u; a plain number -> itself.
double resolve_tolerance(const nlohmann::json& v, const format* out) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  const double k = std::stod(s.substr(0, s.size() - 1));
  return k * (out ? out->unit_roundoff() : 0.0);
}

bool is_tolerance_string(const nlohmann::json& v) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  if (s.size() < 2 || s.back() != 'u') return false;
  try {
    size_t used = 0;
    const double k = std::stod(s.substr(0, s.size() - 1), &used);
    return used == s.size() - 1 && k >= 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

double detector_params::number(const std::string& name) const {
  const auto& v = v_.at(name);
  return resolve_tolerance(v, out_);
}

bool register_detector(detector_info info) {
  auto key = std::make_pair(info.workload, info.name);
  registry().emplace(std::move(key), std::move(info));
  return true;
}

bool register_detector_late(std::function<void()> registration) {
  late_registrations().push_back(std::move(registration));
  return true;
}

const detector_info* find_detector(const std::string& workload, const std::string& name) {
  run_late_registrations();
  auto it = registry().find({workload, name});
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<const detector_info*> all_detectors() {
  run_late_registrations();
  std::vector<const detector_info*> out;
  for (const auto& [k, v] : registry()) out.push_back(&v);
  return out;
}

nlohmann::json validate_params(const detector_info& info, const nlohmann::json& given) {
  if (!given.is_null() && !given.is_object()) throw value_error("expected an object of parameters");
  nlohmann::json out = nlohmann::json::object();
  if (given.is_object()) {
    for (auto it = given.begin(); it != given.end(); ++it) {
      const bool known = std::any_of(info.params.begin(), info.params.end(), [&](const param_spec& p) { return p.name == it.key(); });
      if (!known) {
        std::string names;
        for (const auto& p : info.params) names += (names.empty() ? "" : ", ") + p.name;
        throw value_error(fmt::format("detector '{}' has no parameter '{}' (it takes: {})", info.name, it.key(),
                                      names.empty() ? "none" : names));
      }
    }
  }
  for (const auto& p : info.params) {
    const nlohmann::json v = (given.is_object() && given.contains(p.name)) ? given.at(p.name) : p.default_value;
    auto bad = [&](const std::string& want) {
      throw value_error(fmt::format("parameter '{}' of detector '{}': expected {}; got {}", p.name, info.name, want, v.dump()));
    };
    // No parameter means anything as NaN or Inf (check-gemm's NAME:K=V text can spell them).
    if (v.is_number() && !std::isfinite(v.get<double>())) bad("a finite number");
    switch (p.t) {
      case param_spec::type::number:
        if (!v.is_number()) bad("a number");
        break;
      case param_spec::type::integer:
        if (!v.is_number_integer()) bad("an integer");
        break;
      case param_spec::type::boolean:
        if (!v.is_boolean()) bad("true or false");
        break;
      case param_spec::type::choice:
        if (!v.is_string() || std::find(p.choices.begin(), p.choices.end(), v.get<std::string>()) == p.choices.end())
          bad("one of " + fmt::format("{}", fmt::join(p.choices, ", ")));
        break;
      case param_spec::type::text:
        if (!v.is_string()) bad("a string");
        break;
      case param_spec::type::number_or:
        if (!v.is_number() && !(v.is_string() && std::find(p.choices.begin(), p.choices.end(), v.get<std::string>()) != p.choices.end()))
          bad("a number or one of " + fmt::format("{}", fmt::join(p.choices, ", ")));
        break;
      case param_spec::type::tolerance:
        if (!(v.is_number() && v.get<double>() >= 0) && !is_tolerance_string(v))
          bad("a non-negative number, or \"Ku\" (K times the output format's unit roundoff)");
        break;
    }
    out[p.name] = v;
  }
  return out;
}

}  // namespace sdc
