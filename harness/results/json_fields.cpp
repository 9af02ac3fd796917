#include "harness/results/json_fields.hpp"

#include <cmath>

#include "foundation/errors.hpp"

namespace sdc {

void json_field::fail(const std::string& expected) const { throw input_error(file_, path_.empty() ? "/" : path_, expected); }

json_field json_field::operator[](const std::string& name) const {
  if (!j_.is_object()) fail("an object (with the field \"" + name + "\")");
  const auto it = j_.find(name);
  if (it == j_.end()) throw input_error(file_, path_ + "/" + name, "a required field of a result set, missing");
  return {*it, path_ + "/" + name, file_};
}

std::optional<json_field> json_field::optional(const std::string& name) const {
  if (!j_.is_object()) fail("an object");
  const auto it = j_.find(name);
  if (it == j_.end() || it->is_null()) return std::nullopt;
  return json_field{*it, path_ + "/" + name, file_};
}

json_field json_field::at(size_t i) const {
  if (!j_.is_array() || i >= j_.size()) fail("an array of at least " + std::to_string(i + 1) + " elements");
  return {j_[i], path_ + "/" + std::to_string(i), file_};
}

std::string json_field::str() const {
  if (!j_.is_string()) fail("a string");
  return j_.get<std::string>();
}

int64_t json_field::integer() const {
  if (j_.is_number_integer()) return j_.get<int64_t>();
  if (j_.is_number_float() && std::trunc(j_.get<double>()) == j_.get<double>()) return int64_t(j_.get<double>());
  fail("an integer");
}

uint64_t json_field::unsigned_integer() const {
  if (j_.is_number_unsigned() || (j_.is_number_integer() && j_.get<int64_t>() >= 0)) return j_.get<uint64_t>();
  fail("an integer of at least 0");
}

double json_field::number() const {
  if (!j_.is_number()) fail("a number");
  return j_.get<double>();
}

bool json_field::boolean() const {
  if (!j_.is_boolean()) fail("true or false");
  return j_.get<bool>();
}

std::optional<double> json_field::number_or_null() const {
  if (j_.is_null()) return std::nullopt;
  return number();
}

std::optional<std::string> json_field::string_or_null() const {
  if (j_.is_null()) return std::nullopt;
  return str();
}

std::vector<json_field> json_field::elements() const {
  if (!j_.is_array()) fail("an array");
  std::vector<json_field> out;
  out.reserve(j_.size());
  for (size_t i = 0; i < j_.size(); ++i) out.push_back({j_[i], path_ + "/" + std::to_string(i), file_});
  return out;
}

std::vector<std::pair<std::string, json_field>> json_field::members() const {
  if (!j_.is_object()) fail("an object");
  std::vector<std::pair<std::string, json_field>> out;
  out.reserve(j_.size());
  for (auto it = j_.begin(); it != j_.end(); ++it) out.emplace_back(it.key(), json_field{*it, path_ + "/" + it.key(), file_});
  return out;
}

std::vector<std::string> json_field::strings() const {
  std::vector<std::string> out;
  for (const auto& e : elements()) out.push_back(e.str());
  return out;
}

std::vector<std::optional<double>> json_field::numbers_or_null() const {
  std::vector<std::optional<double>> out;
  if (!j_.is_array()) fail("an array of numbers or nulls");
  out.reserve(j_.size());
  for (const auto& e : j_) {
    if (!e.is_null() && !e.is_number()) fail("an array of numbers or nulls");
    out.push_back(e.is_null() ? std::nullopt : std::optional<double>(e.get<double>()));
  }
  return out;
}

std::vector<double> json_field::numbers() const {
  std::vector<double> out;
  if (!j_.is_array()) fail("an array of numbers");
  out.reserve(j_.size());
  for (const auto& e : j_) {
    if (!e.is_number()) fail("an array of numbers");
    out.push_back(e.get<double>());
  }
  return out;
}

std::map<std::string, std::optional<double>> json_field::metric_map() const {
  if (!j_.is_object()) fail("an object of numbers or nulls");
  std::map<std::string, std::optional<double>> out;
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (it->is_null()) out.emplace_hint(out.end(), it.key(), std::nullopt);
    else if (it->is_number()) out.emplace_hint(out.end(), it.key(), it->get<double>());
    else throw input_error(file_, path_ + "/" + it.key(), "a number or null");
  }
  return out;
}

std::map<std::string, std::string> json_field::string_map() const {
  if (!j_.is_object()) fail("an object of strings");
  std::map<std::string, std::string> out;
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!it->is_string()) throw input_error(file_, path_ + "/" + it.key(), "a string");
    out.emplace_hint(out.end(), it.key(), it->get<std::string>());
  }
  return out;
}

}  // namespace sdc
