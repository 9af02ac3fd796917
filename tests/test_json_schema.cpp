// The one way JSON input is checked (foundation/io/json_schema.hpp): problems
// as JSON pointers with the schema's "expected" text; every committed suite
// and training configuration passes its schema, and a broken copy does not.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/input_schemas.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/json_schema.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const json k_doc = json::parse(R"js({
  "type": "object", "expected": "an object {n, list}", "unknown": "no such field",
  "required": ["n"], "additionalProperties": false,
  "properties": {
    "n": {"$ref": "#/definitions/count"},
    "list": {"type": "array", "items": {"type": "object", "required": ["id"], "additionalProperties": false,
                                        "properties": {"id": {"type": "string", "expected": "an id (text)"}}}}
  },
  "definitions": {"count": {"type": "integer", "minimum": 0, "expected": "a non-negative integer"}}
})js");

sdc::schema_problem first(const json& instance) {
  const auto p = sdc::json_schema(k_doc).problems(instance);
  return p.empty() ? sdc::schema_problem{"(valid)", ""} : p.front();
}

TEST(JsonSchema, NamesThePointerAndWhatWasExpected) {
  EXPECT_TRUE(sdc::json_schema(k_doc).problems(json{{"n", 3}}).empty());
  auto p = first(json{{"n", -1}});  // through a $ref
  EXPECT_EQ(p.pointer, "/n");
  EXPECT_EQ(p.expected, "expected a non-negative integer; got an integer -1");
  p = first(json::object());
  EXPECT_EQ(p.pointer, "/n");
  EXPECT_EQ(p.expected, "required field is missing");
  p = first(json{{"n", 1}, {"m", 2}});
  EXPECT_EQ(p.pointer, "/m");
  EXPECT_EQ(p.expected, "no such field 'm' (expected one of: list, n)");
  p = first(json{{"n", 1}, {"list", json::array({{{"id", "a"}}, {{"id", 7}}})}});  // the deepest problem first
  EXPECT_EQ(p.pointer, "/list/1/id");
  EXPECT_EQ(p.expected, "expected an id (text); got an integer 7");
  p = first(json::array());
  EXPECT_EQ(p.pointer, "");
  EXPECT_EQ(p.expected, "expected an object {n, list}; got an array of 0 values");
  try {
    sdc::json_schema(k_doc).check(json{{"n", "x"}}, "f.json", "/inner");
    ADD_FAILURE() << "accepted";
  } catch (const sdc::input_error& e) {
    EXPECT_EQ(e.file(), "f.json");
    EXPECT_EQ(e.field(), "/inner/n");
  }
}

// Every suite and training configuration in suites/ passes its schema; a copy
// with a field of the wrong type does not.
TEST(JsonSchema, CommittedSuitesAndConfigurationsPassTheirSchemas) {
  const sdc::json_schema suite(json::parse(sdc::suite_schema_text())), config(json::parse(sdc::training_config_schema_text()));
  const fs::path dir = fs::path(SDCBENCH_TEST_DATA) / ".." / "suites";
  int suites = 0, configs = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") {
      json j = sdc::read_json_file(e.path().string());
      const auto p = suite.problems(j);
      EXPECT_TRUE(p.empty()) << e.path() << ": " << (p.empty() ? "" : p.front().pointer + " " + p.front().expected);
      j["seed"] = "one";
      EXPECT_FALSE(suite.problems(j).empty()) << e.path();
      ++suites;
    }
  for (const auto& e : fs::directory_iterator(dir / "training")) {
    json j = sdc::read_json_file(e.path().string());
    const auto p = config.problems(j);
    EXPECT_TRUE(p.empty()) << e.path() << ": " << (p.empty() ? "" : p.front().pointer + " " + p.front().expected);
    j["ranks"] = 0;
    ASSERT_FALSE(config.problems(j).empty()) << e.path();
    EXPECT_EQ(config.problems(j).front().pointer, "/ranks");
    ++configs;
  }
  EXPECT_GE(suites, 20);
  EXPECT_GE(configs, 4);
}

}  // namespace
