// `sdcbench stat feature_value`, `stat npu_asd` and `stat consistency` on hand-made
// training signals; bad files and options end with exit 2 naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "cli_runner.hpp"
#include "detectors/consistency/consistency.hpp"
#include "foundation/io/npy.hpp"

namespace {

using namespace sdc::testing;

// 12 steady values, no gradient (0), then two far above T_1 two minutes apart, then
// NaN a minute later: torch_npu's _abnormal_process strikes out at the second and,
// reusing the struck latest one, again at the NaN; MindSpore's strict cooldown
// (prev + cooldown < t) does not count the NaN.
TEST(StatFeatureValue, AlarmsStrikesAndStrikeOutsPerVariant) {
  const std::string dir = scratch_dir("stat-fv");
  std::ofstream(dir + "/fv.txt") << "1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4\n0\n500\n2e-4\n5000\nnan\n";
  const std::string args = " --param strikes_num=2 --param cooldown=1 --param seconds_per_step=60";
  auto r = run_cli("stat feature_value " + dir + "/fv.txt --variant torch_npu" + args);
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  using nlohmann::json;
  EXPECT_EQ(j["alarms_at"], json::parse("[[13,0],[15,0],[16,0]]"));
  EXPECT_EQ(j["strikes_at"], json::parse("[[13,0],[15,0],[16,0]]"));
  EXPECT_EQ(j["strike_outs_at"], json::parse("[[15,0],[16,0]]"));
  EXPECT_EQ(j["final"][0]["nz"], 13);  // the zero (no gradient) left the state alone
  r = run_cli("stat feature_value " + dir + "/fv.txt" + args);  // mindspore
  ASSERT_EQ(r.code, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["variant"], "mindspore");
  EXPECT_EQ(j["alarms_at"], json::parse("[[13,0],[15,0],[16,0]]"));
  EXPECT_EQ(j["strikes_at"], json::parse("[[13,0],[15,0]]"));
  EXPECT_TRUE(j["strike_outs_at"].is_null());  // none without the CheckSum
}

// A 2-D file: steps x parameters, every grad_sample_interval-th column watched.
TEST(StatFeatureValue, TwoDimensionalFilesWatchEveryNthParameter) {
  const std::string dir = scratch_dir("stat-fv2");
  std::vector<double> v(20 * 5, 1e-3);
  v[15 * 5 + 1] = 1e6, v[17 * 5 + 2] = 1e6;  // a spike in column 1 (not watched) and in column 2
  sdc::write_npy(dir + "/fv.npy", "<f8", {20, 5}, v.data(), v.size() * 8);
  const auto r = run_cli("stat feature_value " + dir + "/fv.npy --param grad_sample_interval=2");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["watched"], nlohmann::json::parse("[0,2,4]"));
  EXPECT_EQ(j["alarms_at"], nlohmann::json::parse("[[17,2]]"));
  sdc::write_npy(dir + "/fv3.npy", "<f8", {5, 2, 10}, v.data(), v.size() * 8);
  const auto bad = run_cli("stat feature_value " + dir + "/fv3.npy");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("fv3.npy: shape"), std::string::npos) << bad.output;
  const auto flat = run_cli("stat npu_asd " + dir + "/fv.npy");
  EXPECT_EQ(flat.code, 2);  // one watched tensor per step: a 2-D file is refused, never flattened
  EXPECT_NE(flat.output.find("expected 1 dimension"), std::string::npos) << flat.output;
}

// SilentCheckV3 (aclnnSilentCheckV2.md): the first value is the average; bound
// avg / (1 - 0.99^step) x 1e6 (fault) or x 1e4 (warning).
TEST(StatNpuAsd, AlarmsAndWarnings) {
  const std::string dir = scratch_dir("stat-asd");
  std::ofstream(dir + "/v.txt") << "4 1e7 4 4 1e9 nan\n";
  const auto r = run_cli("stat npu_asd " + dir + "/v.txt");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["warnings_at"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(j["alarms_at"], nlohmann::json::parse("[5]"));  // 1e9 is below the bound the 1e7 raised; NaN is a fault
  EXPECT_EQ(run_cli("stat npu_asd " + dir + "/v.txt --variant torch_npu").code, 2);
  EXPECT_EQ(run_cli("stat npu_asd " + dir + "/v.txt --param strikes_num=1").code, 2);
}

TEST(StatConsistency, MetricsAndTheFaultyRankStandsOut) {
  const std::string dir = scratch_dir("stat-cons");
  const int64_t R = 4, P = 64;
  std::vector<float> g(size_t(R * P));
  for (int64_t i = 0; i < R * P; ++i) g[size_t(i)] = float(std::sin(0.37 * double(i)) + (i % P % 4 == 0 ? 1.0 : 0.0));
  g[size_t(2 * P + 5)] = 1e20f;  // rank 2's corrupted element
  sdc::write_npy(dir + "/g.npy", "<f4", {R, P}, g.data(), g.size() * 4);
  std::ofstream(dir + "/l.txt") << "2.0 2.1 1.9 2.0\n";
  const auto r = run_cli("stat consistency --losses " + dir + "/l.txt --grads " + dir + "/g.npy");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  std::vector<std::span<const float>> spans;
  for (int64_t k = 0; k < R; ++k) spans.emplace_back(g.data() + k * P, size_t(P));
  const std::vector<double> losses = {2.0, 2.1, 1.9, 2.0};
  const auto ref = sdc::consistency_reference(losses, spans);
  EXPECT_NEAR(j["cos_mean"].get<double>(), ref.cos_mean, 1e-12);
  EXPECT_NEAR(j["loss_range"].get<double>(), 0.2, 1e-12);
  for (int k = 0; k < R; ++k) EXPECT_NEAR(j["ranks"][k]["cos_to_rest"].get<double>(), ref.cos_to_rest[size_t(k)], 1e-12);
  EXPECT_GT(j["ranks"][2]["z_log_norm"].get<double>(), 100);
}

TEST(StatTraining, BadInputExitsTwoNamingTheFileOrOption) {
  const std::string dir = scratch_dir("stat-bad");
  std::ofstream(dir + "/fv.txt") << "1 2 x\n";
  auto r = run_cli("stat feature_value " + dir + "/fv.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("fv.txt: line 1"), std::string::npos) << r.output;
  std::ofstream(dir + "/ok.txt") << "1 2 3\n";
  r = run_cli("stat feature_value " + dir + "/ok.txt --param upper_thresh1=10 --param upper_thresh2=100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("upper_thresh1"), std::string::npos) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --param tau=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--param: tau"), std::string::npos) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --param cooldown=nan");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --tau 3");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("stat folding " + dir + "/ok.txt --param cooldown=1");
  EXPECT_EQ(r.code, 2) << r.output;
  std::vector<float> g(12, 1.0f);
  sdc::write_npy(dir + "/g1.npy", "<f4", {12}, g.data(), 48);
  sdc::write_npy(dir + "/g.npy", "<f4", {3, 4}, g.data(), 48);
  r = run_cli("stat consistency --losses " + dir + "/ok.txt --grads " + dir + "/g1.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("g1.npy: shape: expected 2 dimensions"), std::string::npos) << r.output;
  std::ofstream(dir + "/l2.txt") << "1 2\n";
  r = run_cli("stat consistency --losses " + dir + "/l2.txt --grads " + dir + "/g.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("l2.txt: values: expected one loss per rank"), std::string::npos) << r.output;
  r = run_cli("stat consistency --grads " + dir + "/g.npy");
  EXPECT_EQ(r.code, 2) << r.output;
  std::ofstream(dir + "/trunc.npy") << "\x93NUMPY";
  r = run_cli("stat consistency --losses " + dir + "/ok.txt --grads " + dir + "/trunc.npy");
  EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
