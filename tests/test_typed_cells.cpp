// Every committed suite's cells are typed when the suite loads: each
// workload's parser (typed_workload::parse_cell) reads every axis value of
// every cell of suites/*.json and suites/training/*.json at both scales, and
// the entry points the engine calls take the typed cell. Built into
// test_training where the training workload is (every suite), else into
// test_episodes (the suites whose workload this build has; the rest are named).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/campaign/suite.hpp"

namespace sdc {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> committed_suites() {
  std::vector<fs::path> out;
  for (const char* dir : {"/suites", "/suites/training"})
    for (const auto& e : fs::directory_iterator(std::string(SDCBENCH_SOURCE_DIR) + dir))
      if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_suite(const fs::path& p) {
  return read_json_file(p.string()).value("schema", "") == k_suite_schema;
}

TEST(TypedCells, EveryCommittedSuiteParsesEveryCellOnce) {
  int suites = 0, cells = 0;
  std::set<std::string> workloads, missing;
  for (const auto& path : committed_suites()) {
    if (!is_suite(path)) continue;  // a training configuration, not a suite
    const std::string workload = read_json_file(path.string()).value("workload", "");
    if (!find_workload(workload)) {
      missing.insert(path.filename().string() + " (" + workload + ")");
      continue;
    }
    bool loaded = true;
    for (const char* scale : {"smoke", "full"}) {
      suite s;
      try {
        s = load_suite(path.string(), scale, {});
      } catch (const input_error& e) {  // a part this program lacks (Python detectors: the sdcbench binary)
        if (std::string(e.what()).find("built without") == std::string::npos) throw;
        missing.insert(path.filename().string() + " (" + e.what() + ")");
        loaded = false;
        break;
      }
      const expansion ex = expand(s);
      ASSERT_FALSE(ex.cells.empty()) << path;
      for (size_t n = 0; n < ex.cells.size(); ++n) {
        const cell& c = ex.cells[n];
        ASSERT_TRUE(c.typed) << path << " cell " << c.key << " was not parsed";
        EXPECT_EQ(c.typed->hash, c.hash) << path << " " << c.key;
        if (ex.skipped[n]) continue;
        // The entry points read the typed cell: none throws on a runnable cell.
        EXPECT_NO_THROW(s.wl->plan(c)) << path << " " << c.key;
        EXPECT_NO_THROW(s.wl->shape(c)) << path << " " << c.key;
        EXPECT_NO_THROW(s.wl->context(c)) << path << " " << c.key;
        ++cells;
      }
      workloads.insert(s.wl->name());
    }
    suites += loaded;
  }
  EXPECT_GE(suites, 10);
  EXPECT_GE(cells, 200) << "the committed suites' runnable cells";
  EXPECT_GE(workloads.size(), 4u) << "every workload family has a committed suite";
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += " " + m;
    std::cout << "not loaded by this program (its workload or detectors are not built into it):" << list << "\n";
  }
  std::cout << suites << " suites, " << cells << " runnable cells typed at both scales\n";
}

// An entry point handed a cell its workload never parsed says so (the engine
// parses every cell; a hand-made one must go through workload::parse).
TEST(TypedCells, AnUnparsedCellIsAnErrorNotAGuess) {
  const suite s = load_suite(std::string(SDCBENCH_SOURCE_DIR) + "/suites/quick.json", "smoke", {});
  cell c = expand(s).cells.at(0);
  c.typed.reset();
  try {
    s.wl->plan(c);
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("was not parsed"), std::string::npos) << e.what();
  }
  c.typed = s.wl->parse(c);
  EXPECT_NO_THROW(s.wl->plan(c));
}

}  // namespace
}  // namespace sdc
