// The result-set reader's one way into JSON (result_set_reader.cpp,
// result_set_records.cpp): a value with its JSON path and its file, so a
// missing or mistyped field is an input_error naming both.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sdc {

class json_field {
 public:
  json_field(const nlohmann::json& j, std::string path, const std::string& file) : j_(j), path_(std::move(path)), file_(file) {}

  // The required member `name` (input_error when absent or this is no object).
  json_field operator[](const std::string& name) const;
  // The member `name`, nullopt when absent or null.
  std::optional<json_field> optional(const std::string& name) const;
  bool has(const std::string& name) const { return j_.is_object() && j_.contains(name); }
  json_field at(size_t i) const;  // element i of an array

  bool is_null() const { return j_.is_null(); }
  std::string str() const;
  int64_t integer() const;  // an integer, or a number with an integral value
  uint64_t unsigned_integer() const;
  double number() const;
  bool boolean() const;
  std::optional<double> number_or_null() const;
  std::optional<std::string> string_or_null() const;
  std::vector<std::string> strings() const;                      // an array of strings
  std::vector<std::optional<double>> numbers_or_null() const;    // an array of numbers or nulls
  std::vector<double> numbers() const;
  std::map<std::string, std::optional<double>> metric_map() const;  // an object of numbers or nulls
  std::map<std::string, std::string> string_map() const;            // an object of strings
  // The members in the document's order (by name), as fields.
  std::vector<std::pair<std::string, json_field>> members() const;
  std::vector<json_field> elements() const;  // an array's elements
  const nlohmann::json& json() const { return j_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& expected) const;

 private:
  const nlohmann::json& j_;
  std::string path_;
  const std::string& file_;
};

}  // namespace sdc
