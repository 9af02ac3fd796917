// `sdcbench plan` (harness/cli/plan_command.*): a ranked table and its JSON on
// a committed training set, and bad job and fleet files refused with exit 2
// naming the field.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"

namespace {

using sdc::testing::run_cli;

std::string plan_src(const std::string& rel) {
  std::string p = SDCBENCH_SOURCE_DIR;  // appended: GCC 12 warns falsely on operator+ (bug 105651)
  p += '/';
  p += rel;
  return p;
}

TEST(PlanCli, RanksPoliciesOnATrainingSetForEachPresetWithARate) {
  const std::string dir = sdc::testing::scratch_dir("plan_cli");
  const auto r = run_cli("plan " + plan_src("results/quick_training-full.json") + " --job " + plan_src("suites/jobs/llm_pretraining_1k.json") +
                         " --replicates 50 --top 3 --out " + (dir + "/plan.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("fleet llama3_405b_2024"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fleet gemini_ultra_2023"), std::string::npos);
  EXPECT_NE(r.output.find("meta_ai_fleet_2025: no rate per hour is published"), std::string::npos);
  EXPECT_NE(r.output.find("no checks: goodput"), std::string::npos);
  std::ifstream in((dir + "/plan.json"));
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["runs"].size(), 2u);
  ASSERT_EQ(j["skipped"].size(), 1u);  // the preset without a rate, named in the file too
  EXPECT_EQ(j["skipped"][0]["fleet"], "meta_ai_fleet_2025");
  for (const auto& run : j["runs"]) {
    ASSERT_GT(run["policies"].size(), 3u);
    EXPECT_EQ(run["policies"][0]["rank"], 1);
    const auto& g = run["policies"][0]["goodput"];
    EXPECT_LE(g["ci95"][0].get<double>(), g["value"].get<double>());
    EXPECT_GE(g["ci95"][1].get<double>(), g["value"].get<double>());
  }
}

TEST(PlanCli, BadJobAndFleetFilesExit2NamingTheField) {
  const std::string dir = sdc::testing::scratch_dir("plan_cli_bad");
  const std::string set = plan_src("results/quick_training-full.json");
  auto job = nlohmann::json::parse(std::ifstream(plan_src("suites/jobs/llm_pretraining_1k.json")));
  job["step_seconds"] = -1;
  std::ofstream((dir + "/job.json")) << job.dump();
  auto r = run_cli("plan " + set + " --job " + (dir + "/job.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("job.json: /step_seconds: expected a positive number"), std::string::npos) << r.output;

  job = nlohmann::json::parse(std::ifstream(plan_src("suites/jobs/llm_pretraining_1k.json")));
  job.erase("measured_ranks");
  std::ofstream((dir + "/job2.json")) << job.dump();
  r = run_cli("plan " + set + " --job " + (dir + "/job2.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("measured_ranks"), std::string::npos) << r.output;

  auto fleet = nlohmann::json::parse(std::ifstream(plan_src("suites/fleets/llama3_405b_2024.json")));
  fleet["mix"]["lifetime"] = {{"permanent", 1.0}};  // quick_training ran transient faults only
  std::ofstream((dir + "/fleet.json")) << fleet.dump();
  r = run_cli("plan " + set + " --job " + plan_src("suites/jobs/llm_pretraining_1k.json") + " --fleet " + (dir + "/fleet.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("fleet.json: /mix/lifetime/permanent: a lifetime of the result set"), std::string::npos) << r.output;

  fleet = nlohmann::json::parse(std::ifstream(plan_src("suites/fleets/llama3_405b_2024.json")));
  fleet["rate"]["per"] = "day";
  std::ofstream((dir + "/fleet2.json")) << fleet.dump();
  r = run_cli("plan " + set + " --job " + plan_src("suites/jobs/llm_pretraining_1k.json") + " --fleet " + (dir + "/fleet2.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("/rate/per"), std::string::npos) << r.output;

  r = run_cli("plan " + set + " --job " + plan_src("suites/jobs/llm_pretraining_1k.json") + " --fleet meta_ai_fleet_2025");
  EXPECT_EQ(r.code, 0) << r.output;  // a preset without a rate is skipped, saying why
  EXPECT_NE(r.output.find("no rate per hour is published"), std::string::npos) << r.output;
}

}  // namespace
