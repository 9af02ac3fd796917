// The paper suites through the sdcbench command at smoke scale (CliSlow.*:
// ctest's test_cli_slow), the format migration and the 003 demo's options.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

using namespace sdc::testing;
using json = nlohmann::json;

namespace {

// A smoke run's cells and recordings are those of the committed smoke set
// (results/smoke/NAME.json), entry for entry, and the set was run from this
// suite file: the CliSlow runs are also those sets' reproduction check
// (tests/smoke_sets/test_smoke_sets.sh reproduces the rest). Stricter than
// `validate --reproduce`, which leaves out fields a set predates: a field
// sdcbench starts writing means re-running the smoke sets (HACKING.md).
void expect_as_committed(const std::string& out, const std::string& name) {
  const json run = read_json(out), committed = read_json(std::string(SDCBENCH_SOURCE_DIR) + "/results/smoke/" + name + ".json");
  ASSERT_EQ(committed.at("suite").at("sha256"), run.at("suite").at("sha256")) << name << ": the suite file changed since the set was run";
  ASSERT_EQ(committed.at("suite").at("scale"), "smoke") << name;
  ASSERT_EQ(committed.at("suite").at("axis_overrides"), json::array()) << name;
  for (const char* part : {"cells", "recordings"}) {
    const json &was = committed.at(part), &now = run.at(part);
    ASSERT_EQ(was.size(), now.size()) << name << ": " << part;
    size_t differ = 0;
    for (size_t i = 0; i < was.size(); ++i)
      if (was[i] != now[i] && differ++ < 3) ADD_FAILURE() << name << ": " << part << "[" << i << "] differs: " << was[i].value("key", "");
    EXPECT_EQ(differ, 0u) << name << ": " << part << " not as in results/smoke/" << name
                          << ".json (if the change is meant, re-run the smoke set and commit it)";
  }
}

}  // namespace

// 001 section 6.4 at smoke scale: V-ABFT as configured for this machine
// (calibrated e_max, checksum in fp32) raises no false alarm on any of the 12
// configurations; the Wilson upper bound is what a reader should quote.
TEST(CliSlow, VabftFprSmokeHasNoFalseAlarms) {
  const auto d = scratch_dir("fpr");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/vabft_fpr.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  expect_as_committed(d + "/r.json", "vabft_fpr");
  EXPECT_NE(r.output.find("clean.rate paper 0.00% / ours 0.00%"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    if (c["detector"]["label"] != "vabft") continue;
    ++checked;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"];
    EXPECT_LT(c["clean"]["ci95"][1].get<double>(), 0.02) << "Wilson upper bound with 0/200";
  }
  EXPECT_EQ(checked, 12);
}

// 004 Table II smoke: integer arithmetic is exact, so no clean run is ever
// flagged; the exact check detects every fault that changed C; the modular
// check's measured rate is consistent with its closed form for the same data.
TEST(CliSlow, Int8Table2SmokeHasNoFalseAlarms) {
  const auto d = scratch_dir("int8_table2");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/dlrm_int8_table2.json --scale smoke --out " + d +
                   "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  expect_as_committed(d + "/r.json", "dlrm_int8_table2");
  EXPECT_NE(r.output.find("pooled over shape"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  int cells = 0;
  for (const auto& c : res["cells"]) {
    ++cells;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
    const auto& sig = c["by_significance"];
    const int64_t changed = c["faulty"]["trials"].get<int64_t>() - sig["masked"]["trials"].get<int64_t>();
    if (c["detector"]["label"] == "abft_int8_exact") {
      EXPECT_EQ(c["faulty"]["detected"].get<int64_t>(), changed) << c["key"];
    } else {
      // Binomial: measured detections within 4 sigma of the closed form's mean.
      const double p = c["metrics"]["faulty.theory_detect.mean"].get<double>();
      const double n = c["faulty"]["trials"].get<double>();
      EXPECT_NEAR(c["faulty"]["detected"].get<double>(), n * p, 4 * std::sqrt(n * p * (1 - p)) + 1e-9) << c["key"];
    }
  }
  EXPECT_EQ(cells, 4 * 2 * 2 * 2);
}

// 004 Table III smoke runs end to end; every false alarm is attributed to one side.
TEST(CliSlow, EmbeddingBagTable3SmokeAttributesFalseAlarms) {
  const auto d = scratch_dir("eb_table3");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/dlrm_eb_table3.json --scale smoke --out " + d +
                   "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  expect_as_committed(d + "/r.json", "dlrm_eb_table3");
  EXPECT_NE(r.output.find("faulty.rate paper 99.50%"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  for (const auto& c : res["cells"]) {
    const auto& m = c["workload_metrics"];  // the workload's MPFR attribution, beside the verdicts
    const int64_t fa = c["clean"]["flagged"];
    EXPECT_EQ(fa > 0 ? m["clean.false_alarm_from_rsum.count"].get<double>() : 0.0, double(fa)) << c["key"];
    EXPECT_GT(m["clean.rsum_err_rel_max.count"].get<double>(), 0) << c["key"];
  }
}

// 000 Table 1 smoke: type-1 faults (eq. 2 growth, the XOR, the 0->1 flip: all
// x 2^128 here) cut per row are all found by Algorithm 1 with no false alarm;
// the same single fault is invisible among per-element log-magnitudes (one
// value in 65536 barely moves the folding statistic).
TEST(CliSlow, GradientTable1Smoke) {
  const auto d = scratch_dir("grad_table1");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_table1.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  expect_as_committed(d + "/r.json", "sdc_table1");
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    if (c["detector"]["label"] != "folding_w1" || !c["skipped"].is_null()) continue;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"];
    const auto& a = c["axes"];
    if (a["bit"] == "exp1" && a["fault_count"] == "1") {
      ++checked;
      EXPECT_EQ(c["faulty"]["detected"], a["split"] == "per_row" ? c["faulty"]["trials"] : json(0)) << c["key"];
    }
  }
  EXPECT_EQ(checked, 6);  // 3 fault models x 2 splits
}

// 000 Appendix A smoke: on the same samples, every multimodality test sees half
// of the values shifted by 6 sigma (>= 19 of 20), and none but the robust z
// and Silverman's test false-alarms on N(0,1) (Silverman: at most 2 of 20).
TEST(Cli, AppendixASmokeComparesTheTests) {
  const auto d = scratch_dir("appendix_a");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_appendix_a.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    const std::string label = c["detector"]["label"];
    if (label.starts_with("robust_z")) continue;
    const auto& a = c["axes"];
    if (a["base"] == "normal(0,1)") {
      EXPECT_LE(c["clean"]["flagged"].get<int>(), label.starts_with("silverman") ? 2 : 0) << label << " " << c["key"];
      if (a["p"] == "0.5" && a["shift"] == "6") {
        EXPECT_GE(c["faulty"]["detected"].get<int>(), 19) << label;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7);  // dip, silverman, uu_test, folding x2, folding_w1, w1
}

// 000 Table 3 as a suite: every cell's delta_crit and position, computed by
// the run, within the golden tolerances (0.05 and 0.01) of its published row.
TEST(Cli, Table3SuiteMatchesThePaper) {
  const auto d = scratch_dir("table3");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_table3.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  int rows = 0;
  for (const auto& c : res["cells"]) {
    ASSERT_FALSE(c["reference"].is_null()) << c["key"];
    EXPECT_NEAR(c["workload_metrics"]["faulty.delta_crit.mean"].get<double>(),
                c["reference"]["workload_metrics.faulty.delta_crit.mean"].get<double>(), 0.05) << c["key"];
    EXPECT_NEAR(c["workload_metrics"]["faulty.position.mean"].get<double>(),
                c["reference"]["workload_metrics.faulty.position.mean"].get<double>(), 0.01) << c["key"];
    ++rows;
  }
  EXPECT_EQ(rows, 6);
}

TEST(Cli, MigrateTurnsVersion1IntoAValidVersion3WithTheSameCounts) {
  const auto d = scratch_dir("migrate");
  const std::string v1 = std::string(SDCBENCH_TEST_DATA) + "/fixtures/compare_a.json";
  auto ok = run_cli("validate " + v1);  // old files still validate
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("valid sdcbench.result/1"), std::string::npos) << ok.output;
  auto r = run_cli("migrate " + v1 + " --out " + d + "/v3.json");
  ASSERT_EQ(r.code, 0) << r.output;
  auto v = run_cli("validate " + d + "/v3.json");
  EXPECT_NE(v.output.find("valid sdcbench.result/4"), std::string::npos) << v.output;
  const json a = read_json(v1), b = read_json(d + "/v3.json");
  ASSERT_EQ(a["cells"].size(), b["cells"].size());
  for (size_t i = 0; i < a["cells"].size(); ++i) {
    const auto &x = a["cells"][i], &y = b["cells"][i];
    if (!x["skipped"].is_null()) continue;
    EXPECT_EQ(x["faulty"]["detected"], y["faulty"]["detected"]);
    EXPECT_EQ(x["faulty"]["outcomes"], y["faulty"]["outcomes"]);
    EXPECT_EQ(x["clean"]["flagged"], y["clean"]["flagged"]);
    const auto& oc = y["faulty"]["outcome_counts"];
    EXPECT_EQ(oc["missed"].get<int64_t>() + y["faulty"]["detected"].get<int64_t>(), y["faulty"]["trials"].get<int64_t>());
    const double rate = y["faulty"]["rate"].is_null() ? 0.0 : y["faulty"]["rate"].get<double>();
    EXPECT_LE(y["faulty"]["ci95"][0].get<double>(), rate);
    EXPECT_GE(y["faulty"]["ci95"][1].get<double>(), rate);
  }
  EXPECT_EQ(run_cli("show " + d + "/v3.json").code, 0);
  EXPECT_EQ(run_cli("migrate " + d + "/v3.json --out " + d + "/again.json").code, 2);  // already version 3
}

// sdcbench demo003: bad options end with exit 2 and a message naming the
// option; a run writes its lines and facts, the same for the same seeds.
TEST(Cli, Demo003OptionsAndOutput) {
  for (const char* bad : {"demo003 silent_detect --npu-asd-enable 2", "demo003 silent_check --seeds 0", "demo003 silent_check --npu-asd-enable 4",
                          "demo003 silent_check --steps -1", "demo003 nonsense"}) {
    const auto r = run_cli(bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
  }
  EXPECT_NE(run_cli("demo003 silent_detect --npu-asd-enable 2").output.find("--npu-asd-enable"), std::string::npos);
  const auto d = scratch_dir("demo003");
  const auto a = run_cli("demo003 silent_detect --seeds 3 --steps 30 --out " + d + "/a.json");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output.find("== paper"), std::string::npos);
  const json j = read_json(d + "/a.json");
  EXPECT_EQ(j["schema"], "sdcbench.demo003/1");
  EXPECT_EQ(j["runs"].size(), 3u);
  ASSERT_EQ(j["facts"].size(), 6u);  // five facts and all of them at once
  for (const auto& f : j["facts"]) EXPECT_EQ(f["runs"], 3);
  ASSERT_EQ(run_cli("demo003 silent_detect --seeds 3 --steps 30 --out " + d + "/b.json").code, 0);
  EXPECT_EQ(read_json(d + "/b.json")["runs"].dump(), j["runs"].dump());
}
