// Result-set versions: version 2's per-step and per-bin scalar names become
// schema 3's typed series with every value kept; show, compare and report read
// versions 1, 2 and 3; validate refuses series-shaped scalars and ragged
// series. The v2 fixtures are cut from smoke runs of training_sites (per-rank
// loss curves) and sdc_figure2 (a histogram) made before version 3.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_runner.hpp"
#include "harness/results/cell_key.hpp"
#include "harness/results/report.hpp"
#include "harness/results/result_set.hpp"

namespace {

using nlohmann::json;
using sdc::testing::read_json;
using sdc::testing::run_cli;
using sdc::testing::scratch_dir;
using sdc::testing::test_data;
namespace fs = std::filesystem;

// The series of `record` with this name, axis and rank (-1: none), or null.
const json& find_series(const json& record, const std::string& name, const std::string& over, int rank) {
  static const json none;
  for (const auto& s : record["series"])
    if (s["name"] == name && s["over"] == over && (rank < 0 ? s["rank"].is_null() : s["rank"] == rank)) return s;
  return none;
}

// Every v2 metric is in v3: a scalar under the same name, or a series point.
// Returns how many series points were checked.
int64_t expect_every_value_kept(const json& v2, const json& v3) {
  // Parsed here independently of series.cpp: KIND.NAME[_rankR]_sNN.STAT or KIND.bin_NN.STAT.
  static const std::regex step(R"((clean|faulty)\.([a-z_0-9]+?)(?:_rank(\d+))?_s(\d+)\.(median|mean|max|count|nan))");
  static const std::regex bin(R"((clean|faulty)\.bin_(\d+)\.(median|mean|max|count|nan))");
  int64_t points = 0;
  for (const char* part : {"cells", "recordings"}) {
    EXPECT_EQ(v2[part].size(), v3[part].size());
    for (size_t i = 0; i < v2[part].size(); ++i) {
      const json &a = v2[part][i], &b = v3[part][i];
      if (!a.contains("metrics")) continue;
      for (auto it = a["metrics"].begin(); it != a["metrics"].end(); ++it) {
        std::smatch m;
        const std::string key = it.key();
        std::string kind, name, over, stat;
        int rank = -1;
        size_t index = 0;
        if (std::regex_match(key, m, bin)) {
          kind = m[1], name = "count", over = "bin", index = std::stoul(m[2]), stat = m[3];
        } else if (std::regex_match(key, m, step)) {
          kind = m[1], name = m[2], over = "step", index = std::stoul(m[4]), stat = m[5];
          if (m[3].matched) rank = std::stoi(m[3]);
        } else {
          EXPECT_EQ(b["metrics"].value(key, json("absent")), *it) << part << " " << i << " " << key;
          continue;
        }
        EXPECT_FALSE(b["metrics"].contains(key)) << key << " is a series point, not a scalar";
        const json& s = find_series(b, name, over, rank);
        if (s.is_null() || !s[kind].is_object() || index >= s[kind][stat].size()) {
          ADD_FAILURE() << key << ": no such point in the version 3 series";
          continue;
        }
        EXPECT_EQ(s[kind][stat][index], *it) << key;
        ++points;
      }
    }
  }
  return points;
}

TEST(ResultVersions, Version2SeriesBecomeTypedArraysWithEveryValueKept) {
  for (const char* f : {"fixtures/series_v2_training.json", "fixtures/series_v2_histogram.json"}) {
    const json v2 = read_json(test_data(f));
    ASSERT_EQ(v2["schema"], "sdcbench.result/2");
    const json v3 = sdc::migrate_result_set(v2, f);
    EXPECT_EQ(v3["schema"], "sdcbench.result/4");  // through 3, to the clean sets of 4
    EXPECT_TRUE(sdc::validate_result_set(v3).empty());
    EXPECT_GT(expect_every_value_kept(v2, v3), 100) << f;
  }
  // The per-rank curves keep their ranks: 4 ranks' losses beside the mean.
  const json v3 = sdc::migrate_result_set(read_json(test_data("fixtures/series_v2_training.json")), "t");
  const json& rec = v3["recordings"][0];
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(find_series(rec, "loss", "step", r).is_null()) << r;
  EXPECT_TRUE(find_series(rec, "loss", "step", 4).is_null());
  EXPECT_EQ(find_series(rec, "loss", "step", -1)["clean"]["median"].size(), 6u);
}

TEST(ResultVersions, ShowCompareAndReportReadVersions1To3) {
  const auto d = scratch_dir("result-versions");
  const std::string v1 = test_data("fixtures/compare_a.json"), v2 = test_data("fixtures/series_v2_training.json");
  ASSERT_EQ(run_cli("migrate " + v2 + " --out " + d + "/v3.json").code, 0);
  for (const std::string& f : {v1, v2, d + "/v3.json"}) {
    const auto r = run_cli("show " + f);
    EXPECT_EQ(r.code, 0) << f << "\n" << r.output;
  }
  // A version 2 set and its migration are the same results: no cell differs.
  const auto c = run_cli("compare " + v2 + " " + d + "/v3.json");
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find(" 0 differ"), std::string::npos) << c.output;
  // The report reads the curves from the series in every version: the same
  // curve charts (a set's section is named by its file's name: both set.json).
  fs::create_directories(d + "/2"), fs::create_directories(d + "/3");
  fs::copy_file(v2, d + "/2/set.json"), fs::copy_file(d + "/v3.json", d + "/3/set.json");
  const std::string hist = test_data("fixtures/series_v2_histogram.json");
  fs::copy_file(hist, d + "/2/hist.json");
  ASSERT_EQ(run_cli("migrate " + hist + " --out " + d + "/3/hist.json").code, 0);
  ASSERT_EQ(run_cli("report " + d + "/2/set.json " + d + "/2/hist.json --out " + d + "/r2 --title t").code, 0);
  ASSERT_EQ(run_cli("report " + d + "/3/set.json " + d + "/3/hist.json --out " + d + "/r3 --title t").code, 0);
  size_t step_charts = 0, histograms = 0;
  for (const auto& e : fs::directory_iterator(d + "/r2/specs")) {
    const std::string name = e.path().filename().string();
    if (name.find("-steps-") == std::string::npos && name.find("-histogram") == std::string::npos) continue;
    std::ifstream a(e.path()), b(d + "/r3/specs/" + name);
    std::stringstream sa, sb;
    sa << a.rdbuf(), sb << b.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << name;
    histograms += name.find("-histogram") != std::string::npos;
    if (name.find("-steps-") != std::string::npos) {
      ++step_charts;
      EXPECT_NE(sa.str().find("loss of each rank"), std::string::npos) << name;
    }
  }
  EXPECT_GE(step_charts, 1u);
  EXPECT_EQ(histograms, 1u);
  ASSERT_EQ(run_cli("report " + v1 + " --out " + d + "/r1 --title t").code, 0);
  fs::remove_all(d);
}

TEST(ResultVersions, ValidateRefusesSeriesShapedScalarsAndRaggedSeries) {
  const json good = sdc::migrate_result_set(read_json(test_data("fixtures/series_v2_training.json")), "t");
  ASSERT_TRUE(sdc::validate_result_set(good).empty());
  auto first_problem = [](const json& j) {
    const auto p = sdc::validate_result_set(j);
    return p.empty() ? std::string("(valid)") : p.front();
  };
  json named = good;
  named["recordings"][0]["metrics"]["clean.loss_s03.median"] = 1.0;
  EXPECT_NE(first_problem(named).find("/recordings/0/metrics: expected an object of scalar metrics, none named for a step"),
            std::string::npos)
      << first_problem(named);
  json ragged = good;
  ragged["recordings"][0]["series"][0]["clean"]["mean"].erase(0);
  EXPECT_NE(first_problem(ragged).find("/recordings/0/series/0/clean/mean"), std::string::npos) << first_problem(ragged);
  json too_many = good;
  too_many["recordings"][0]["series"][0]["faulty"]["count"][0] = 1000.0;
  EXPECT_NE(first_problem(too_many).find("count <="), std::string::npos) << first_problem(too_many);
  json twice = good;
  twice["recordings"][0]["series"].push_back(twice["recordings"][0]["series"][0]);
  EXPECT_NE(first_problem(twice).find("already listed"), std::string::npos) << first_problem(twice);
  json no_number = good;
  no_number["recordings"][0]["series"][0]["clean"]["nan"][0] = no_number["recordings"][0]["series"][0]["clean"]["count"][0];
  EXPECT_NE(first_problem(no_number).find("must be null"), std::string::npos) << first_problem(no_number);
}

// A cell's key as the suite writes it, and keys no run writes: a part
// without '=' once made `show` loop for ever (fuzz target `result`, corpus
// regress-timeout-71b58859a47e); validate now refuses such a key.
TEST(CellKey, SplitsAtTopLevelSemicolonsAndRefusesPartsWithoutAName) {
  using parts = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(sdc::split_cell_key(""), parts{});
  EXPECT_EQ(sdc::split_cell_key("dtype=fp32;distribution=npy(a;b=c);bit=exp1"),
            (parts{{"dtype", "fp32"}, {"distribution", "npy(a;b=c)"}, {"bit", "exp1"}}));
  EXPECT_EQ(sdc::split_cell_key("a=b=c"), (parts{{"a", "b=c"}}));
  EXPECT_EQ(sdc::split_cell_key("a="), (parts{{"a", ""}}));
  EXPECT_EQ(sdc::split_cell_key("a=(;b"), (parts{{"a", "(;b"}}));  // an unclosed '(' holds the rest
  for (const char* bad : {"a=1;b", "b", "a=1;=2", "a=1;;b=2"}) EXPECT_FALSE(sdc::split_cell_key(bad)) << bad;
  const json good = sdc::migrate_result_set(read_json(test_data("fixtures/series_v2_training.json")), "t");
  ASSERT_TRUE(sdc::validate_result_set(good).empty());
  json cut = good;
  cut["cells"][0]["key"] = cut["cells"][0]["key"].get<std::string>() + ";faults_per";
  auto p = sdc::validate_result_set(cut);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front(), "/cells/0/key: expected NAME=VALUE parts joined by ';'");
  json other = good;
  other["cells"][0]["key"] = "no_such_axis=1";
  p = sdc::validate_result_set(other);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front(), "/cells/0/key: no_such_axis is not an axis of the suite");
  // What show prints for a key it reads: the suite's varying axes.
  EXPECT_FALSE(sdc::show_table(sdc::parse_result_set(good, "series_v2_training.json")).empty());
}

}  // namespace

namespace {

// Every string of a result set that names a path of the machine: absolute, or
// holding the checkout's directory (issue 33: sets name files relative to the
// working directory or by their file name and SHA-256).
void collect_machine_paths(const json& x, const std::string& at, std::vector<std::string>& out) {
  if (x.is_object())
    for (const auto& [k, v] : x.items()) collect_machine_paths(v, at + "/" + k, out);
  else if (x.is_array())
    for (size_t i = 0; i < x.size(); ++i) collect_machine_paths(x[i], at + "/" + std::to_string(i), out);
  else if (x.is_string() && (x.get<std::string>().rfind('/', 0) == 0 || x.get<std::string>().find(SDCBENCH_SOURCE_DIR) != std::string::npos))
    out.push_back(at + " = " + x.get<std::string>());
}

}  // namespace

TEST(ResultPaths, ARunGivenAbsolutePathsRecordsNone) {
  const std::string d = scratch_dir("portable-paths");
  const auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/quick.json --scale smoke --quiet --axis dtype=fp32 --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json set = read_json(d + "/r.json");
  std::vector<std::string> found;
  collect_machine_paths(set, "", found);
  EXPECT_TRUE(found.empty()) << found.size() << " machine paths, the first: " << found.front();
  EXPECT_EQ(set["provenance"]["argv"][0], "sdcbench");
  EXPECT_EQ(set["suite"]["file"], "quick.json");  // outside the working directory: its file name (and sha256)
  bool named_calibration = false;
  for (const auto& det : set["suite"]["detectors"])
    if (det["params"].contains("calibration")) named_calibration = det["params"]["calibration"] == "emax-calibration.json";
  EXPECT_TRUE(named_calibration) << set["suite"]["detectors"];
}

TEST(ResultPaths, NoCommittedSetNamesAPathOfAMachine) {
  int sets = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(SDCBENCH_SOURCE_DIR) + "/results")) {
    if (e.path().extension() != ".json" || e.path().string().find("/schema/") != std::string::npos) continue;
    std::vector<std::string> found;
    collect_machine_paths(read_json(e.path().string()), "", found);
    EXPECT_TRUE(found.empty()) << e.path() << ": " << found.size() << " machine paths, the first: " << found.front();
    ++sets;
  }
  EXPECT_GE(sets, 40);
}
