// A detector's parameters: checked against a JSON Schema made from its
// param_spec list (the one way JSON input is checked: foundation/io/json_schema.hpp),
// defaults filled in, tolerances resolved for the cell's output format.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <mutex>

#include "foundation/errors.hpp"
#include "foundation/io/json_schema.hpp"
#include "protocol/detector.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// A tolerance written "Ku": K >= 0 (a decimal number) unit roundoffs.
constexpr const char* k_tolerance_text = R"(^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?u$)";

json param_node(const param_spec& p) {
  const std::string choices = fmt::format("{}", fmt::join(p.choices, ", "));
  switch (p.t) {
    case param_spec::type::number:
      return {{"type", "number"}, {"expected", "a number"}};
    case param_spec::type::integer:
      return {{"type", "integer"}, {"expected", "an integer"}};
    case param_spec::type::boolean:
      return {{"type", "boolean"}, {"expected", "true or false"}};
    case param_spec::type::choice:
      return {{"enum", p.choices}, {"expected", "one of " + choices}};
    case param_spec::type::text:
      return {{"type", "string"}, {"expected", "a string"}};
    case param_spec::type::object:
      return {{"type", "object"}, {"expected", "an object"}};
    case param_spec::type::number_or:
      return {{"anyOf", json::array({{{"type", "number"}}, {{"enum", p.choices}}})}, {"expected", "a number or one of " + choices}};
    case param_spec::type::tolerance:
      return {{"anyOf", json::array({{{"type", "number"}, {"minimum", 0}}, {{"type", "string"}, {"pattern", k_tolerance_text}}})},
              {"expected", "a non-negative number, or \"Ku\" (K times the output format's unit roundoff)"}};
  }
  return json::object();
}

// The detector's parameter schema, made once per detector.
const json_schema& schema_of(const detector_info& info) {
  static std::mutex mu;
  static std::map<const detector_info*, std::unique_ptr<json_schema>> made;
  std::lock_guard<std::mutex> lock(mu);
  auto& s = made[&info];
  if (!s) {
    json props = json::object();
    for (const auto& p : info.params) props[p.name] = param_node(p);
    s = std::make_unique<json_schema>(json{{"type", "object"},
                                           {"expected", "an object of parameters"},
                                           {"unknown", "detector '" + info.name + "' has no parameter"},
                                           {"properties", props},
                                           {"additionalProperties", false}});
  }
  return *s;
}

}  // namespace

double detector_params::number(const std::string& name) const {
  const auto& v = v_.at(name);
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();  // "Ku", as the schema allowed
  return std::stod(s.substr(0, s.size() - 1)) * (out_ ? out_->unit_roundoff() : 0.0);
}

json validate_params(const detector_info& info, const json& given) {
  const json values = given.is_null() ? json::object() : given;
  if (const auto problems = schema_of(info).problems(values); !problems.empty()) {
    const auto& p = problems.front();
    if (p.pointer.empty() || p.expected.find("has no parameter") != std::string::npos) throw value_error(p.expected);
    throw value_error(fmt::format("parameter '{}' of detector '{}': {}", p.pointer.substr(1), info.name, p.expected));
  }
  json out = json::object();
  for (const auto& p : info.params) {
    const json v = values.contains(p.name) ? values.at(p.name) : p.default_value;
    // No parameter means anything as NaN or Inf (check-gemm's NAME:K=V text can spell them; JSON cannot).
    if (v.is_number() && !std::isfinite(v.get<double>()))
      throw value_error(fmt::format("parameter '{}' of detector '{}': expected a finite number; got {}", p.name, info.name, v.dump()));
    out[p.name] = v;
  }
  return out;
}

}  // namespace sdc
