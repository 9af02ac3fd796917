// The typed result-set reader (harness/results/result_set_reader.hpp): every
// committed set types; a null metric reads as "not computed", never 0; a
// missing or mistyped field is an input_error naming the file and the field's
// JSON path; the typed values are the document's, axes in the key's order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/results/cell_key.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string k_results = std::string(SDCBENCH_SOURCE_DIR) + "/results";

TEST(ResultReader, EveryCommittedSetReads) {
  int sets = 0;
  for (const std::string& dir : {k_results, k_results + "/smoke"})
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      const json doc = read_json_file(e.path().string());
      if (schema_of(doc).rfind("sdcbench.result/", 0) != 0) continue;  // a calibration, not a result set
      SCOPED_TRACE(e.path().string());
      result_set r;
      ASSERT_NO_THROW(r = load_result_set(e.path().string()));
      EXPECT_EQ(r.schema, k_result_schema);
      EXPECT_FALSE(r.suite.detectors.empty());
      EXPECT_EQ(r.cells.size(), doc["cells"].size());  // migration keeps every record
      ++sets;
    }
  EXPECT_GE(sets, 40);
}

TEST(ResultReader, TypedValuesAreTheDocuments) {
  const std::string file = k_results + "/quick-full.json";
  const json doc = load_result_document(file);
  const result_set r = parse_result_set(doc, file);
  ASSERT_EQ(r.cells.size(), doc["cells"].size());
  for (size_t i = 0; i < r.cells.size(); ++i) {
    const auto& c = r.cells[i];
    const json& d = doc["cells"][i];
    EXPECT_EQ(c.key, d["key"]);
    EXPECT_EQ(c.detector.label, d["detector"]["label"]);
    EXPECT_EQ(c.raw, d);
    if (c.faulty) {
      EXPECT_EQ(c.faulty->detected.count, d["faulty"]["detected"]);
      EXPECT_EQ(c.faulty->detected.rate.has_value(), !d["faulty"]["rate"].is_null());
    }
    for (const auto& [name, value] : c.metrics) EXPECT_EQ(value.has_value(), !d["metrics"][name].is_null()) << name;
    // axes in the key's order
    const auto parts = split_cell_key(c.key);
    ASSERT_TRUE(parts);
    for (size_t k = 0; k < parts->size(); ++k) EXPECT_EQ(c.axes[k], (*parts)[k]);
  }
  EXPECT_EQ(r.suite.seed, doc["suite"]["seed"].get<uint64_t>());
  EXPECT_EQ(r.timing.size(), doc["timing"].size());
}

TEST(ResultReader, ANullMetricIsNotComputedNotZero) {
  const std::string file = k_results + "/smoke/vabft_table4.json";
  json doc = load_result_document(file);
  auto& m = doc["cells"][0]["metrics"];
  m["clean.tightness.mean"] = nullptr;
  m["clean.threshold.mean"] = 0.0;
  doc["cells"][0]["faulty"]["rate"] = nullptr;
  const result_set r = parse_result_set(doc, "doctored.json");
  const cell_record& c = r.cells[0];
  EXPECT_FALSE(c.metric("clean.tightness.mean").has_value());
  ASSERT_TRUE(c.metric("clean.threshold.mean").has_value());
  EXPECT_EQ(*c.metric("clean.threshold.mean"), 0.0);
  EXPECT_FALSE(c.metric("no.such.metric").has_value());
  ASSERT_TRUE(c.faulty);
  EXPECT_FALSE(c.faulty->detected.rate.has_value());
}

TEST(ResultReader, AMissingFieldNamesTheFileAndTheField) {
  const std::string file = k_results + "/smoke/vabft_table4.json";
  const json good = load_result_document(file);
  auto expect_error = [&](json doc, const std::string& field) {
    try {
      parse_result_set(doc, "doctored.json");
      ADD_FAILURE() << "no error for " << field;
    } catch (const input_error& e) {
      EXPECT_EQ(e.file(), "doctored.json");
      EXPECT_EQ(e.field(), field);
    }
  };
  json doc = good;
  doc["cells"][1].erase("key");
  expect_error(doc, "/cells/1/key");
  doc = good;
  doc["suite"]["trials"].erase("faulty");
  expect_error(doc, "/suite/trials/faulty");
  doc = good;
  doc["cells"][0]["faulty"]["detected"] = "four";
  expect_error(doc, "/cells/0/faulty/detected");
  doc = good;
  doc["cells"][0]["metrics"]["clean.tightness.mean"] = "high";
  expect_error(doc, "/cells/0/metrics/clean.tightness.mean");

  // From a file, the validation names it first.
  const fs::path dir = fs::temp_directory_path() / "sdcbench_test_result_reader";
  fs::create_directories(dir);
  const std::string path = (dir / "no_key.json").string();
  doc = good;
  doc["cells"][0].erase("key");
  std::ofstream(path) << doc.dump();
  try {
    load_result_set(path);
    ADD_FAILURE() << "no error for a cell without its key";
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.field().find("key"), std::string::npos) << e.field();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sdc
