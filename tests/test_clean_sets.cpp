// Clean sets (issue 66; METHODOLOGY "Clean sets"): the cells of a training
// fork share their clean episodes. The engine runs a set once and hands it
// to the set's other cells; a cell run alone gives the same clean side; a
// pooled count (show --brief, the report, the paper columns) counts a set
// once; `validate` refuses a file whose records of one set disagree or whose
// ids would pool a set twice; a version 3 set migrates to its clean sets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

// Two grad-norm checks on 4-step bf16 episodes, 2 faulty + 3 clean trials per
// cell, over `sites` (a fault axis: every cell one clean set).
std::string write_suite(const std::string& dir, const std::vector<std::string>& sites) {
  std::filesystem::copy_file(std::string(SDCBENCH_SOURCE_DIR) + "/suites/training/episodes_bf16.json", dir + "/episodes_bf16.json",
                             std::filesystem::copy_options::overwrite_existing);
  const json suite = {{"schema", "sdcbench.suite/1"}, {"name", "clean_sets"}, {"workload", "training"}, {"seed", 5},
                      {"axes", {{"config", {"episodes_bf16.json"}}, {"warmup_steps", {"6"}}, {"steps", {"4"}}, {"site", sites},
                                {"bit", {"exp1"}}, {"when", {"specific(1)"}}, {"natural_runs", {"2"}}}},
                      {"trials", {{"faulty", 2}, {"clean", 3}}},
                      {"detectors", {{{"name", "grad_norm_outlier"}}, {{"name", "nonfinite_grad"}}}},
                      {"presets", {{"smoke", json::object()}, {"full", json::object()}}}};
  std::ofstream(dir + "/s.json") << suite.dump();
  return dir + "/s.json";
}

json read(const std::string& path) { return json::parse(std::ifstream(path)); }

json clean_side(const json& c) { return {c["clean"], c["metrics"]["clean_score_max"], c["metrics"]["clean_score_nan"]}; }

class CleanSets : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(scratch_dir("clean-sets"));
    const auto r = run_cli("run " + write_suite(*dir_, {"grad:all", "bucket", "act:blocks.0.mlp.fc1"}) + " --scale smoke --quiet --out " +
                           *dir_ + "/shared.json");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  static std::string* dir_;
};
std::string* CleanSets::dir_ = nullptr;

TEST_F(CleanSets, OneSetRunsOnceAndEveryCellCarriesIt) {
  const json j = read(*dir_ + "/shared.json");
  EXPECT_EQ(j["schema"], "sdcbench.result/4");
  ASSERT_EQ(j["cells"].size(), 6u);
  const json id = j["cells"][0]["clean_set"];
  ASSERT_TRUE(id.is_string());
  EXPECT_EQ(id.get<std::string>().find("site="), std::string::npos) << id;  // a fault axis
  for (const auto& c : j["cells"]) {
    EXPECT_EQ(c["clean_set"], id);
    EXPECT_EQ(c["clean"]["trials"], 3);
  }
  // 3 cells x 2 faulty episodes, and the set's 3 clean ones once.
  EXPECT_EQ(j["provenance"]["throughput"]["episodes"], 3 * 2 + 3);
}

// The claim the sharing rests on: no fault axis reaches a clean episode. The
// second and third cells, each run alone (so each runs the set itself), give
// the clean side the shared run handed them.
TEST_F(CleanSets, ACellRunAloneGivesTheCleanSideItShares) {
  const json shared = read(*dir_ + "/shared.json");
  for (const std::string site : {"bucket", "act:blocks.0.mlp.fc1"}) {
    SCOPED_TRACE(site);
    const auto r = run_cli("run " + *dir_ + "/s.json --scale smoke --quiet --axis site=" + site + " --out " + *dir_ + "/alone.json");
    ASSERT_EQ(r.code, 0) << r.output;
    const json alone = read(*dir_ + "/alone.json");
    for (const auto& a : alone["cells"])
      for (const auto& s : shared["cells"])
        if (s["axes"] == a["axes"] && s["detector"]["label"] == a["detector"]["label"]) {
          EXPECT_EQ(clean_side(a), clean_side(s)) << a["detector"]["label"];
          EXPECT_EQ(a["faulty"], s["faulty"]);
        }
    EXPECT_EQ(alone["provenance"]["throughput"]["episodes"], 2 + 3);
  }
}

// Without a fault the distributed optimizer gives the replicated one's bits
// (trainer.hpp), so `optimizer` is a fault axis of the set: a distributed
// cell run alone gives the clean side the replicated cell shares, and names
// the same set.
TEST_F(CleanSets, TheDistributedOptimizerGivesTheSameCleanEpisodes) {
  const json shared = read(*dir_ + "/shared.json");
  const auto r = run_cli("run " + *dir_ + "/s.json --scale smoke --quiet --axis site=grad:all --axis optimizer=distributed --out " +
                         *dir_ + "/distributed.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json d = read(*dir_ + "/distributed.json");
  int compared = 0;
  for (const auto& a : d["cells"])
    for (const auto& s : shared["cells"])
      if (s["axes"]["site"] == "grad:all" && s["detector"]["label"] == a["detector"]["label"]) {
        EXPECT_EQ(a["axes"]["optimizer"], "distributed");
        EXPECT_EQ(a["clean_set"], s["clean_set"]);
        EXPECT_EQ(clean_side(a), clean_side(s)) << a["detector"]["label"];
        ++compared;
      }
  EXPECT_EQ(compared, 2);
}

// A run killed after its first cell (the one that ran the set) and resumed
// runs the set again in its first cell left, and gives the same cells.
TEST_F(CleanSets, AResumedRunGivesTheSameCells) {
  const std::string out = *dir_ + "/resumed.json";
  const auto killed = run_cli("run " + *dir_ + "/s.json --scale smoke --quiet --stop-after-cells 1 --out " + out);
  ASSERT_EQ(killed.code, 3) << killed.output;
  const auto resumed = run_cli("run " + *dir_ + "/s.json --scale smoke --quiet --resume --out " + out);
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  const json a = read(*dir_ + "/shared.json"), b = read(out);
  EXPECT_EQ(a["cells"], b["cells"]);
  EXPECT_EQ(a["recordings"], b["recordings"]);
}

// show --brief and the report's summary count the set's 3 clean episodes once, not 3 x 3.
TEST_F(CleanSets, ShowAndReportPoolASetOnce) {
  const auto show = run_cli("show --brief " + *dir_ + "/shared.json");
  ASSERT_EQ(show.code, 0) << show.output;
  const json j = read(*dir_ + "/shared.json");
  int64_t flagged = -1;
  for (const auto& c : j["cells"])
    if (c["detector"]["label"] == "grad_norm_outlier") flagged = c["clean"]["flagged"];
  EXPECT_NE(show.output.find(" " + std::to_string(flagged) + "/3 "), std::string::npos) << show.output;
  EXPECT_EQ(show.output.find("/9 "), std::string::npos) << show.output;
  const auto rep = run_cli("report " + *dir_ + "/shared.json --out " + *dir_ + "/report");
  ASSERT_EQ(rep.code, 0) << rep.output;
  std::ifstream page(*dir_ + "/report/index.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find(std::to_string(flagged) + "/3"), std::string::npos);
  EXPECT_EQ(html.find(std::to_string(flagged) + "/9"), std::string::npos);
}

TEST_F(CleanSets, ValidateRefusesASetCountedTwiceOrTwoSidesOfOneSet) {
  const json j = read(*dir_ + "/shared.json");
  {  // another id on one cell would pool the set a second time
    json bad = j;
    bad["cells"][2]["clean_set"] = "config=episodes_bf16.json;site=bucket";
    std::ofstream(*dir_ + "/twice.json") << bad.dump();
    const auto v = run_cli("validate " + *dir_ + "/twice.json");
    EXPECT_NE(v.code, 0);
    EXPECT_NE(v.output.find("/cells/2/clean_set"), std::string::npos) << v.output;
  }
  {  // one set, two clean sides: one cell's highest clean score changed
    json bad = j;
    bad["cells"][4]["metrics"]["clean_score_max"] = 1e9;
    std::ofstream(*dir_ + "/sides.json") << bad.dump();
    const auto v = run_cli("validate " + *dir_ + "/sides.json");
    EXPECT_NE(v.code, 0);
    EXPECT_NE(v.output.find("/cells/4/clean_set: names the clean set of /cells/0 but its clean side differs"), std::string::npos)
        << v.output;
  }
}

// A version 3 training set (the committed main job's) migrates to version 4
// with one clean set per fork, and show --brief then pools its 16 clean
// episodes once, not once per cell (6 x 16).
TEST(CleanSetsMigration, AVersion3SetPoolsItsCleanEpisodesOnce) {
  const std::string dir = scratch_dir("clean-sets-v3");
  const std::string v3 = std::string(SDCBENCH_SOURCE_DIR) + "/tests/fixtures/quick_training-v3.json";
  const auto m = run_cli("migrate " + v3 + " --out " + dir + "/v4.json");
  ASSERT_EQ(m.code, 0) << m.output;
  const json j = read(dir + "/v4.json");
  EXPECT_EQ(j["schema"], "sdcbench.result/4");
  EXPECT_EQ(j["suite"]["migrated_from"], "sdcbench.result/3");
  for (const auto& c : j["cells"]) EXPECT_EQ(c["clean_set"], j["cells"][0]["clean_set"]);
  const auto show = run_cli("show --brief " + v3);
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("12/16"), std::string::npos) << show.output;  // grad_norm_outlier: 12 of the 16 clean episodes
  EXPECT_EQ(show.output.find("/96"), std::string::npos) << show.output;
}

}  // namespace
