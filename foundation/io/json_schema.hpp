// Checking a JSON input against a JSON Schema (draft 7, with valijson): the
// one way every input file's structure is checked (suites, training
// configurations, detector parameters, result sets); what the registries and
// formulas decide (a workload's axes, a detector's name) is checked after it.
// A problem comes back as a JSON pointer and what was expected there, for
// input_error(file, pointer, expected). The text comes from the schema: the
// innermost node on the pointer's path with an "expected" annotation, or, for
// a field the schema does not list, the object node's "unknown" annotation.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

struct schema_problem {
  std::string pointer;   // "/trials/faulty"; "" is the document
  std::string expected;  // "expected a non-negative integer; got -1"
};

class json_schema {
 public:
  explicit json_schema(nlohmann::json doc);
  ~json_schema();
  json_schema(const json_schema&) = delete;
  json_schema& operator=(const json_schema&) = delete;
  // Every problem, the deepest (the most specific) first; empty when valid.
  std::vector<schema_problem> problems(const nlohmann::json& instance) const;
  // Throws input_error(file, pointer, expected) for the first problem; the
  // pointer is prefixed by `at` (where the instance sits in its file).
  void check(const nlohmann::json& instance, const std::string& file, const std::string& at = "") const;
  const nlohmann::json& doc() const { return doc_; }

 private:
  struct impl;
  nlohmann::json doc_;
  std::unique_ptr<impl> impl_;
};

// "a string", "an integer -1", ...: how a value is named in a message.
std::string json_value_name(const nlohmann::json& v);

}  // namespace sdc
