// `sdcbench validate --reproduce` (harness/cli/reproduce_command.*) on a GEMM
// suite, so it runs under the sanitizers too: identical on a re-run, a
// hand-edited number caught and named, a suite file that is not the
// recorded one refused naming the field, its options refused without it.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

const std::string k_src = SDCBENCH_SOURCE_DIR;

// quick.json's fp32 cells at smoke scale, written to DIR/q.json.
std::string gemm_set(const std::string& dir) {
  const std::string set = dir + "/q.json";
  const auto r = run_cli("run " + k_src + "/suites/quick.json --scale smoke --quiet --axis dtype=fp32 --out " + set);
  EXPECT_EQ(r.code, 0) << r.output;
  return set;
}

TEST(Reproduce, SaysIdenticalAndCatchesAChangedNumber) {
  const std::string dir = scratch_dir("reproduce-gemm");
  const std::string set = gemm_set(dir);
  const auto ok = run_cli("validate --reproduce " + set + " --out-dir " + dir + "/again --threads 2");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find(": reproduced: "), std::string::npos) << ok.output;
  EXPECT_EQ(read_json(dir + "/again/q.json")["cells"], read_json(set)["cells"]);
  // A recorded number changed by hand (a detector metric, so the set still
  // validates) is caught, and the cell and field are named.
  json j = read_json(set);
  json& m = j["cells"][0]["metrics"];
  std::string field;
  for (auto& [k, v] : m.items())
    if (v.is_number()) {
      v = v.get<double>() + 1;
      field = "/metrics/" + k;
      break;
    }
  ASSERT_FALSE(field.empty());
  const std::string edited = dir + "/edited.json";
  std::ofstream(edited) << j.dump();
  const auto bad = run_cli("validate --reproduce " + edited + " --out-dir " + dir + "/again2");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("NOT reproduced: 1 of"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find(field), std::string::npos) << bad.output;
}

TEST(Reproduce, RefusesAnotherSuiteAndStrayOptions) {
  const std::string dir = scratch_dir("reproduce-bad");
  const std::string set = gemm_set(dir);
  const auto other = run_cli("validate --reproduce " + set + " --suite " + k_src + "/suites/quick_int8.json");
  EXPECT_EQ(other.code, 2) << other.output;
  EXPECT_NE(other.output.find("suite.sha256"), std::string::npos) << other.output;
  EXPECT_EQ(run_cli("validate " + set + " --threads 2").code, 2);                     // only with --reproduce
  EXPECT_EQ(run_cli("validate --reproduce " + set + " " + set + " --suite x").code, 2);  // --suite with one file
  json j = read_json(set);
  j["schema"] = "sdcbench.result/1";
  std::ofstream(dir + "/v1.json") << j.dump();
  EXPECT_NE(run_cli("validate --reproduce " + dir + "/v1.json").code, 0);  // not a version 2 set
}

}  // namespace
